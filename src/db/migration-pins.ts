import { createHash } from 'node:crypto';
import type { Migration } from './migrations.ts';

/** Each unit's steps by checksum (sha256 of the text), in order: what src/db/migration-steps.json pins. */
export type PinnedSteps = Record<string, string[]>;

export const pinnedSteps = (units: readonly Migration[]): PinnedSteps =>
  Object.fromEntries(
    units
      .filter(u => 'steps' in u)
      .map(u => [
        u.name,
        (u as { steps: readonly string[] }).steps.map(s => createHash('sha256').update(s).digest('hex')),
      ]),
  );

/**
 * What a change did to the released steps: a pinned step whose text changed or that is gone (never allowed: a change
 * is a new step), and steps not pinned yet (allowed once pinned, by `npm run schema:pin`).
 */
export function comparePins(pinned: PinnedSteps, now: PinnedSteps): { changed: string[]; unpinned: string[] } {
  const changed: string[] = [];
  const unpinned: string[] = [];
  for (const [unit, steps] of Object.entries(pinned)) {
    steps.forEach((checksum, i) => {
      if (now[unit]?.[i] !== checksum) changed.push(`${unit} step ${i + 1}`);
    });
  }
  for (const [unit, steps] of Object.entries(now)) {
    for (let i = pinned[unit]?.length ?? 0; i < steps.length; i++) unpinned.push(`${unit} step ${i + 1}`);
  }
  return { changed, unpinned };
}
