import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import '../../src/events/all.ts';
import { declaredEvents } from '../../src/events/event.ts';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
  valueType?: z.ZodType;
};
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Every string-typed leaf of a schema, with its path. */
function stringLeaves(schema: z.ZodType, path: string): { path: string; schema: z.ZodType }[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return [{ path, schema }];
    case 'object':
      return Object.entries(def.shape!).flatMap(([key, child]) => stringLeaves(child, `${path}.${key}`));
    case 'optional':
    case 'nullable':
    case 'default':
      return stringLeaves(def.innerType!, path);
    case 'array':
      return stringLeaves(def.element!, `${path}[]`);
    case 'union':
      return def.options!.flatMap(o => stringLeaves(o, path));
    case 'pipe':
      return stringLeaves(def.in!, path);
    case 'record':
      return stringLeaves(def.valueType!, `${path}{}`);
    default:
      return [];
  }
}

describe('event schemas', () => {
  const leaves = declaredEvents().flatMap(d => stringLeaves(d.schema, d.type));

  it('have string fields to check (the walk reaches them)', () => {
    expect(leaves.length).toBeGreaterThan(50);
  });

  it.each(['NUL \u0000 inside', 'a lone surrogate \ud800 inside', 'a lone low surrogate \udc00'])(
    'refuse text PostgreSQL cannot store in every string field: %s',
    bad => {
      const accepting = leaves.filter(l => l.schema.safeParse(bad).success).map(l => l.path);
      expect(accepting).toEqual([]);
    },
  );

  it('accept emoji, right-to-left text and other well-formed Unicode where free text is allowed', () => {
    const userName = leaves.find(l => l.path === 'UserRegistered.name')!;
    expect(userName.schema.safeParse('Budi 😀 مرحبا 𝔘𝔫𝔦').success).toBe(true);
  });
});
