import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { comparePins, pinnedSteps, type PinnedSteps } from '../../src/db/migration-pins.ts';
import { allMigrations } from '../../src/schema.ts';

// Numbered migrations: a released step of a unit of start-up DDL never changes; a change is a new step.
const pinned = JSON.parse(
  readFileSync(new URL('../../src/db/migration-steps.json', import.meta.url), 'utf8'),
) as PinnedSteps;

describe('the numbered steps of the start-up DDL', () => {
  it('keeps every released step as it was, and every step is pinned (npm run schema:pin after adding one)', () => {
    expect(comparePins(pinned, pinnedSteps(allMigrations))).toEqual({ changed: [], unpinned: [] });
  });

  it('given a pinned step edited or gone, says so; given a step added at the end, asks for it to be pinned', () => {
    const released = { 'read-model:payments': ['a', 'b'], 'queue-runners': ['c'] };
    expect(comparePins(released, { 'read-model:payments': ['a', 'x'], 'queue-runners': ['c'] }).changed).toEqual([
      'read-model:payments step 2',
    ]);
    expect(comparePins(released, { 'read-model:payments': ['a'], 'queue-runners': ['c'] }).changed).toEqual([
      'read-model:payments step 2',
    ]);
    expect(
      comparePins(released, { 'read-model:payments': ['a', 'b', 'd'], 'queue-runners': ['c'], 'new-unit': ['e'] }),
    ).toEqual({
      changed: [],
      unpinned: ['read-model:payments step 3', 'new-unit step 1'],
    });
  });
});
