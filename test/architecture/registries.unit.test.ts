import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projections } from '../../src/projections/all.ts';
import { sagas } from '../../src/sagas/all.ts';

/** docs/architecture.md's saga and projection tables name what src/sagas/all.ts and src/projections/all.ts register. */
const page = readFileSync(path.resolve(import.meta.dirname, '../../docs/architecture.md'), 'utf8');

/** The rows of the table that follows `heading`, as cells. */
function tableUnder(heading: string): string[][] {
  const section = page.split(`\n${heading}\n`)[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter(line => line.startsWith('| `'))
    .map(line =>
      line
        .slice(1, -1)
        .split(' | ')
        .map(cell => cell.trim()),
    );
}

const codeIn = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map(m => m[1]!);

describe('docs/architecture.md against the registries', () => {
  it('names every saga the service runs, with the events it reacts to, and no other', () => {
    const documented = tableUnder('## Sagas').map(([saga, reactsTo]) => ({
      name: codeIn(saga!)[0],
      handles: codeIn(reactsTo!).sort(),
    }));
    const registered = sagas({} as never).map(s => ({ name: s.name, handles: [...s.handles].sort() }));
    expect(documented).toEqual(registered);
  });

  it('names every projection the service keeps, with its tables, and no other', () => {
    const documented = tableUnder('## Projections').map(([projection, tables]) => ({
      name: codeIn(projection!)[0],
      tables: codeIn(tables!),
    }));
    const registered = projections.map(p => ({ name: p.name, tables: p.tables }));
    expect(documented).toEqual(registered);
  });
});
