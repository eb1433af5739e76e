import { defineConfig } from 'vitest/config';

// Three tiers, by file name (STYLE.md): `npm run test:unit` alone needs no database and runs in seconds.
const database = ['test/support/global-setup.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // a test that asserts nothing passes whatever the code does
    expect: { requireAssertions: true },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'] } },
      { extends: true, test: { name: 'int', include: ['test/**/*.int.test.ts'], globalSetup: database } },
      { extends: true, test: { name: 'e2e', include: ['test/**/*.e2e.test.ts', 'test/**/*.browser.test.ts'], globalSetup: database } },
    ],
  },
});
