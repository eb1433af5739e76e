import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No file of the repository points outside it: a clone holds everything its files name. The text that would point at
 * a sibling folder or at this machine's work folder is built here in pieces, so this file does not name it itself.
 */
const root = resolve(import.meta.dirname, '../..');
const outsideMarks = ['..' + '/shared', '/' + 'work/'];
const checked = /\.(md|ts|mjs|json|ya?ml)$|(^|\/)Dockerfile[^/]*$/;

/** Folders that are the machine's or the run's, never the repository's (a copy without .git is walked instead). */
const notOurs = new Set(['node_modules', '.git', '.data', '.scratch', 'coverage']);

/** Every file under `dir`, relative to the root, folders of the machine's left out. */
function walk(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap(entry => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return notOurs.has(entry.name) ? [] : walk(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The repository's files: git's list in a clone; every file but the machine's in a copy without .git (CI's copy). */
function tracked(): string[] {
  let files: string[];
  try {
    files = execFileSync('git', ['ls-files', '-z'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .split('\0')
      .filter(Boolean);
  } catch {
    files = walk('');
  }
  return files.filter(f => checked.test(f) && existsSync(join(root, f)));
}

/** The targets of a markdown file's links, inline `[x](target)` and reference `[x]: target`, code left out. */
export function linkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(m => m[1]!);
  const references = [...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/gm)].map(m => m[1]!);
  return [...inline, ...references];
}

/**
 * The paths of the repository's files that a markdown file's code spans name (`src/...`, `test/...`, `docs/...`, ...,
 * with an extension): a page that names a file renamed or gone misleads its reader as a broken link does. Patterns
 * (`payments-*.ts`) and positions (`file.ts:12`) are not a file's path and are left out.
 */
export function namedPaths(markdown: string): string[] {
  const spans = [...markdown.matchAll(/`([^`\n]+)`/g)].map(m => m[1]!.trim());
  return spans.filter(span => /^(src|test|bench|docs|scripts|clients)\/[\w./-]+\.(ts|js|mjs|md|json|sql)$/.test(span));
}

/** A link to another site, a mail address or an anchor of the same page: not a file of the repository. */
const external = (target: string) => /^([a-z][a-z0-9+.-]*:|#|\/\/)/i.test(target);

/** What is wrong with a relative link from `file`: it leaves the repository, or names no file; null when it is fine. */
export function linkProblem(file: string, target: string, exists: (path: string) => boolean): string | null {
  if (external(target)) return null;
  const path = decodeURIComponent(target.replace(/[#?].*$/, ''));
  if (path === '') return null;
  const resolved = path.startsWith('/') ? join(root, path) : resolve(root, dirname(file), path);
  const inside = relative(root, resolved);
  if (inside.startsWith('..' + sep) || inside === '..') return `${file}: ${target} leaves the repository`;
  return exists(resolved) ? null : `${file}: ${target} names no file`;
}

describe('links of tracked files', () => {
  const files = tracked();

  it('finds the files to check', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/architecture.md');
  });

  it('never point at a folder beside the repository or at the machine it was written on', () => {
    const offenders = files.flatMap(f => {
      const text = readFileSync(join(root, f), 'utf8');
      return outsideMarks.filter(mark => text.includes(mark)).map(mark => `${f}: ${mark}`);
    });
    expect(offenders).toEqual([]);
  });

  it('in markdown resolve to a file inside the repository (anchors aside)', () => {
    const offenders = files
      .filter(f => f.endsWith('.md'))
      .flatMap(f => linkTargets(readFileSync(join(root, f), 'utf8')).flatMap(t => linkProblem(f, t, existsSync) ?? []));
    expect(offenders).toEqual([]);
  });

  it("in markdown name the repository's files as they are: a code span with a path names a file that exists", () => {
    // a package's own README names its files from its folder
    const exists = (f: string, p: string) => existsSync(join(root, p)) || existsSync(join(root, dirname(f), p));
    const offenders = files
      .filter(f => f.endsWith('.md') && !f.startsWith('bench/results/'))
      .flatMap(f => namedPaths(readFileSync(join(root, f), 'utf8')).flatMap(p => (exists(f, p) ? [] : `${f}: ${p}`)));
    expect(offenders).toEqual([]);
  });

  it('takes from a code span only a whole path of the repository with its extension', () => {
    expect(
      namedPaths('`src/a.ts`, `src/b-*.ts`, `test/c.int.test.ts`, `npm test`, `src/d.ts:12`, `x/src/e.ts`'),
    ).toEqual(['src/a.ts', 'test/c.int.test.ts']);
  });

  it('tells a link that leaves the repository or names nothing from one that resolves', () => {
    const exists = (p: string) => p === join(root, 'docs/webhooks.md');
    expect(linkProblem('docs/guide/x.md', '../webhooks.md#signing', exists)).toBeNull();
    expect(linkProblem('docs/guide/x.md', 'https://example.com/a.md', exists)).toBeNull();
    expect(linkProblem('docs/guide/x.md', '#anchor', exists)).toBeNull();
    expect(linkProblem('docs/guide/x.md', ['..', '..', '..', 'shared', 'x.md'].join('/'), exists)).toMatch(
      /leaves the repository/,
    );
    expect(linkProblem('docs/guide/x.md', 'webhooks.md', exists)).toMatch(/names no file/);
    expect(linkTargets('[a](b.md) `[c](d.md)`\n```\n[e](f.md)\n```\n[g]: h.md "t"')).toEqual(['b.md', 'h.md']);
  });
});
