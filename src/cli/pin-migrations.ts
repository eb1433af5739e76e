import { writeFileSync } from 'node:fs';
import { pinnedSteps } from '../db/migration-pins.ts';
import { allMigrations } from '../schema.ts';

/**
 * `npm run schema:pin`: writes the checksums of every unit's steps to src/db/migration-steps.json, after a new step
 * was added at the end of a unit (test/db/migration-steps.unit.test.ts fails until it is pinned, and whenever a
 * pinned step changes).
 */
const file = new URL('../db/migration-steps.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(pinnedSteps(allMigrations), null, 2)}\n`);
console.log(`pinned the steps of ${allMigrations.length} units in src/db/migration-steps.json`);
