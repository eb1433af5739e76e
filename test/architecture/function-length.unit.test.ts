import { describe, expect, it } from 'vitest';
import { functionLengths, type FunctionLength } from './function-lengths.ts';

/**
 * No function of src runs past 70 lines (STYLE.md, "Lessons from our own code") unless the line above it says why,
 * in a comment starting `// long:`. A function that long does several things; its parts want names of their own. A
 * page or route group grows by a plugin of its own, a workflow by named steps.
 */
const limit = 70;

const functions = functionLengths('src');
const where = (f: FunctionLength) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

describe('function length in src', () => {
  it('finds the functions of src (the parser answers)', () => {
    expect(functions.length).toBeGreaterThan(1000);
    expect(functions.find(f => f.file === 'src/clock.ts')).toBeDefined();
  });

  it(`no function over ${limit} lines without a "// long:" reason on the line above it`, () => {
    const long = functions.filter(f => f.lines > limit && !f.reason);
    expect(long.map(where)).toEqual([]);
  });

  it('a "// long:" reason stands only above a function over the limit', () => {
    expect(functions.filter(f => f.reason && f.lines <= limit).map(where)).toEqual([]);
  });
});
