import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src (docs/architecture.md, "Layers"), bottom first: a file may import its own layer and the layers
 * below it, never one above, and no runtime import goes round in a cycle. `import type` and `export type` are not
 * counted: they are erased before the code runs (`import { type X }` is counted: verbatimModuleSyntax keeps it as an
 * import of the module); the deciders in src/domain count them too. A path ending in `/` is a folder; the longest matching path wins.
 */
const layers: { name: string; paths: string[] }[] = [
  {
    name: 'base',
    paths: [
      'src/errors.ts',
      'src/text.ts',
      'src/ids.ts',
      'src/clock.ts',
      'src/config.ts',
      'src/logger.ts',
      'src/plans.ts',
      'src/csv.ts',
      'src/emv-qr.ts',
      'src/qris-payload.ts',
      'src/qr-image.ts',
      'src/qr-decoding.ts',
      'src/qr-decode-queue.ts',
      'src/qr-decode-worker.ts',
      'src/types/',
    ],
  },
  { name: 'domain', paths: ['src/domain/', 'src/events/'] },
  {
    name: 'machinery',
    paths: [
      // the command machinery (src/store/commands) beside the event store, and what a command is given
      'src/store/',
      'src/db/',
      'src/security/',
      'src/providers/',
      'src/metrics.ts',
      'src/core.ts',
      'src/commands/deps.ts',
    ],
  },
  { name: 'read models', paths: ['src/projections/'] },
  { name: 'commands', paths: ['src/commands/'] },
  { name: 'reactions', paths: ['src/sagas/', 'src/webhooks/', 'src/audit/', 'src/background/'] },
  { name: 'surfaces', paths: ['src/api/', 'src/web/'] },
  {
    name: 'app',
    paths: ['src/service.ts', 'src/schema.ts', 'src/main.ts', 'src/start-notices.ts', 'src/start-files.ts', 'src/cli/'],
  },
];

/** Imports that break the rule today, each to be removed when its reason is gone (then this test asks for it). */
const allowedUpward: Record<string, string> = {};

/** Runtime import cycles known today: the edge named is left out of the cycle search, and must exist. */
const allowedCycleEdges: Record<string, string> = {};

/** `typeOnly`: an `import type` or `export type`, erased before the code runs. */
type Import = { from: string; to: string; dynamic: boolean; typeOnly: boolean };

const root = resolve(import.meta.dirname, '../..');
const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap(entry => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

// a statement at the start of a line: `import x, { y } from`, `import * as x from`, `import './side-effect'`,
// `export { x } from`, `export * from`; `import type` and `export type` are caught and marked
const importClause = String.raw`(?:(?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*\s+as\s+[\w$]+)|[\w$]+)`;
const exportClause = String.raw`(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?)`;
const staticImport = new RegExp(
  String.raw`^[ \t]*(?:import\s+(type\s+)?${importClause}\s+from\s+|import\s+` +
    String.raw`|export\s+(type\s+)?${exportClause}\s+from\s+)['"]([^'"]+)['"]`,
  'gm',
);
const dynamicImport = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(root, file), 'utf8');
  const target = (specifier: string) => relative(root, resolve(root, dirname(file), specifier)).replaceAll('\\', '/');
  const found: Import[] = [];
  for (const [, importType, exportType, specifier] of text.matchAll(staticImport)) {
    if (!specifier!.startsWith('.')) continue;
    found.push({ from: file, to: target(specifier!), dynamic: false, typeOnly: Boolean(importType || exportType) });
  }
  for (const [, specifier] of text.matchAll(dynamicImport)) {
    if (specifier!.startsWith('.')) found.push({ from: file, to: target(specifier!), dynamic: true, typeOnly: false });
  }
  return found.filter(i => i.to.startsWith('src/') && i.to.endsWith('.ts'));
}

function layerOf(file: string): number {
  let best = -1;
  let bestLength = 0;
  layers.forEach(({ paths }, index) => {
    for (const path of paths) {
      const matches = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (matches && path.length > bestLength) [best, bestLength] = [index, path.length];
    }
  });
  return best;
}

/** Strongly connected groups of more than one file (Tarjan), each a cycle of runtime imports. */
function cycles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** One cycle through a group's first file, the shortest (breadth first within the group), to name in the failure. */
function oneCycle(group: string[], edges: Map<string, string[]>): string[] {
  const inGroup = new Set(group);
  const start = group[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges.get(v) ?? []) {
      if (!inGroup.has(w) || cameFrom.has(w)) continue;
      cameFrom.set(w, v);
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.unshift(at);
        return [start, ...path];
      }
      queue.push(w);
    }
  }
  return group;
}

const files = sourceFiles('src');
const allImports = files.flatMap(importsOf);
const imports = allImports.filter(i => !i.typeOnly);
const edgeName = (i: Import) => `${i.from} -> ${i.to}`;

describe('layers of src (docs/architecture.md)', () => {
  it('every file of src is in a layer', () => {
    expect(files.filter(f => layerOf(f) < 0)).toEqual([]);
  });

  it('no file imports from a layer above its own', () => {
    const upward = imports
      .filter(i => layerOf(i.to) > layerOf(i.from) && !(edgeName(i) in allowedUpward))
      .map(i => `${edgeName(i)} (${layers[layerOf(i.from)]!.name} imports ${layers[layerOf(i.to)]!.name})`);
    expect(upward).toEqual([]);
  });

  it('the deciders (src/domain) import nothing from a layer above, types included', () => {
    // a decider reads as the business rule alone: its types are its own, not the store's or a provider's
    const domain = layers.findIndex(l => l.name === 'domain');
    const upward = allImports
      .filter(i => i.from.startsWith('src/domain/') && layerOf(i.to) > domain)
      .map(i => `${edgeName(i)} (${layers[layerOf(i.to)]!.name})`);
    expect(upward).toEqual([]);
  });

  it('the workflows (src/commands) leave the state cache to the machinery: none reads it itself', () => {
    // how a stream is kept fast is its decider's to declare (cached, likelyNew, serialised, attempts), not a workflow's
    const reading = files.filter(
      f => f.startsWith('src/commands/') && /\bcachedState\b/.test(readFileSync(join(root, f), 'utf8')),
    );
    expect(reading).toEqual([]);
  });

  it('no runtime import cycle', () => {
    // a dynamic import runs after every module has loaded: it cannot make a cycle at load time
    const edges = new Map<string, string[]>();
    for (const i of imports) {
      if (i.dynamic || edgeName(i) in allowedCycleEdges) continue;
      edges.set(i.from, [...(edges.get(i.from) ?? []), i.to]);
    }
    expect(cycles(edges).map(group => oneCycle(group, edges).join(' -> '))).toEqual([]);
  });

  it('every allowed exception still exists (remove it from the list once its import is gone)', () => {
    const present = new Set(imports.map(edgeName));
    expect(Object.keys({ ...allowedUpward, ...allowedCycleEdges }).filter(edge => !present.has(edge))).toEqual([]);
    const notUpward = Object.keys(allowedUpward).filter(edge => {
      const [from, to] = edge.split(' -> ') as [string, string];
      return layerOf(to) <= layerOf(from);
    });
    expect(notUpward).toEqual([]);
  });
});
