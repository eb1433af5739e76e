import { relative, resolve } from 'node:path';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

/**
 * Every function of the project's TypeScript under a folder, with its length in lines (first line of its head to its
 * closing line, nested functions included) and whether the line above it gives a reason for its length (`// long:
 * why`). Parsed by the compiler's own parser (the `typescript` package's API), so strings, templates and comments
 * cannot fool it. `npx tsx test/architecture/function-lengths.ts [folder] [limit]` prints those over the limit.
 */
export type FunctionLength = {
  file: string;
  /** The enclosing named functions and this one, `outer > inner`; a callback is named by its call. */
  name: string;
  line: number;
  lines: number;
  /** The reason after `// long:` on the line above, or undefined. */
  reason: string | undefined;
};

const root = resolve(import.meta.dirname, '../..');

const functionKinds = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

type Named = Node & { name?: Node };
type Call = Node & { expression: Node; arguments: readonly Node[] };

/** What a reader calls the function: its own name, the name it is bound to, or the call it is given to. */
function nameOf(node: Node, file: SourceFile): string {
  const own = (node as Named).name;
  if (own) return own.getText(file);
  const parent = node.parent;
  if (parent.kind === SyntaxKind.VariableDeclaration || parent.kind === SyntaxKind.PropertyAssignment)
    return (parent as Named).name!.getText(file);
  if (parent.kind === SyntaxKind.CallExpression) {
    const call = parent as Call;
    const first = call.arguments[0];
    const label = first && first.kind === SyntaxKind.StringLiteral ? first.getText(file) : '';
    return `${call.expression.getText(file)}(${label})`;
  }
  return '<anonymous>';
}

function lineOf(starts: number[], pos: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= pos) low = mid;
    else high = mid - 1;
  }
  return low;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  return starts;
}

function lengthsIn(file: SourceFile): FunctionLength[] {
  const text = file.text;
  const starts = lineStarts(text);
  const lines = text.split('\n');
  const path = relative(root, file.fileName).replaceAll('\\', '/');
  const found: FunctionLength[] = [];
  const seen = new Map<string, number>();
  const visit = (node: Node, outer: string) => {
    let scope = outer;
    if (functionKinds.has(node.kind)) {
      const first = lineOf(starts, node.getStart(file));
      const last = lineOf(starts, node.getEnd() - 1);
      const own = `${outer ? `${outer} > ` : ''}${nameOf(node, file)}`;
      const count = (seen.get(own) ?? 0) + 1;
      seen.set(own, count);
      scope = count > 1 ? `${own} #${count}` : own;
      const above = first > 0 ? lines[first - 1]!.trim() : '';
      const reason = /^\/\/ long:\s*(\S.*)$/.exec(above)?.[1];
      found.push({ file: path, name: scope, line: first + 1, lines: last - first + 1, reason });
    }
    node.forEachChild(child => void visit(child, scope));
  };
  visit(file, '');
  return found;
}

/** The functions of every project file under `folder` (relative to the repository), in file order. */
export function functionLengths(folder = 'src'): FunctionLength[] {
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProjects: [resolve(root, 'tsconfig.json')] }).getProjects()[0]!;
    const under = resolve(root, folder) + '/';
    return project.program
      .getSourceFileNames()
      .filter(name => name.startsWith(under))
      .sort()
      .flatMap(name => lengthsIn(project.program.getSourceFile(name)!));
  } finally {
    api.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const limit = Number(process.argv[3] ?? 70);
  const long = functionLengths(process.argv[2] ?? 'src').filter(f => f.lines > limit);
  for (const f of long.sort((a, b) => b.lines - a.lines))
    console.log(
      `${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}${f.reason ? `  (long: ${f.reason})` : ''}`,
    );
}
