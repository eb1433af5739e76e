import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { envSchema, loadConfig } from '../../src/config.ts';

// The configuration table is what operators set the service by: a default that drifts from the code is a setting
// they get without knowing it.
const table = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8')
  .split('\n')
  .filter(line => line.startsWith('| `'))
  .map(line => line.split(' | ').map(cell => cell.replace(/^\| /, '').trim()))
  .flatMap(([names, defaults]) => {
    const nameList = names!.split(' / ').map(n => n.replace(/`/g, ''));
    const defaultList = defaults!.split(' / ');
    return nameList.map((name, i) => ({ name, documented: (nameList.length > 1 ? defaultList[i] : defaults)! }));
  });

const defaults = envSchema.parse({}) as Record<string, unknown>;
const literal = /^`([^`]+)`$/;
const unset = (value: unknown) => value === undefined || value === '';

// defaults made from other settings when the configuration is loaded, as the table states them
const dataDir = path.resolve('/tmp/config-doc-test');
const derived = loadConfig({ DATA_DIR: dataDir, PORT: '4100', LOG_LEVEL: 'silent' });
const derivedDefaults: Record<string, { stated: string; inCode: unknown; expected: unknown }> = {
  PUBLIC_BASE_URL: {
    stated: 'http://localhost:$PORT',
    inCode: derived.publicBaseUrl,
    expected: 'http://localhost:4100',
  },
  SANDBOX_PORT: { stated: 'PORT + 1', inCode: derived.sandboxPort, expected: 4101 },
  LEDGER_CHECKPOINT_DIR: {
    stated: 'DATA_DIR/checkpoints',
    inCode: derived.ledgerCheckpointDir,
    expected: path.join(dataDir, 'checkpoints'),
  },
};

describe('docs/configuration.md', () => {
  it('documents every setting the service reads, and only those', () => {
    const documented = table.map(row => row.name).sort();
    const read = Object.keys(envSchema.shape)
      .filter(name => name !== 'NODE_ENV') // the runtime's own, not ours to document as a setting
      .sort();
    expect(documented).toEqual(read);
  });

  it('states each default the code has, as the code has it', () => {
    const wrong = table.flatMap(({ name, documented }) => {
      const inCode = defaults[name];
      const stated = literal.exec(documented)?.[1];
      const made = derivedDefaults[name];
      if (made)
        return stated === made.stated && made.inCode === made.expected
          ? []
          : [`${name}: documented ${documented}, the code makes ${String(made.inCode)}`];
      if (stated === undefined) return unset(inCode) ? [] : [`${name}: the code's default is ${String(inCode)}`];
      return String(inCode) === stated
        ? []
        : [`${name}: documented ${stated}, the code's default is ${String(inCode)}`];
    });
    expect(wrong).toEqual([]);
  });
});
