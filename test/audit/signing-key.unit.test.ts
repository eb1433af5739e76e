import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createService } from '../../src/service.ts';
import { writeDataFiles } from '../../src/start-files.ts';
import { testSigningKey } from '../support/signing-key.ts';

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'svc-ledger-key-'));
/** The configuration as the service's start takes it: loaded, then its files written into DATA_DIR. */
const started = (env: Record<string, string>) => {
  const config = loadConfig(env);
  writeDataFiles(config.dataFiles);
  return config;
};
const secretsOf = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;

describe("the ledger's signing key", () => {
  it('is generated in embedded mode into its own file, readable by the owner only, not into secrets.json', () => {
    const dir = dataDir();
    const first = started({ DATA_DIR: dir });
    const file = path.join(dir, 'ledger-signing-key');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.digestSigningKey);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(secretsOf(dir)).not.toHaveProperty('digestSigningKey');
    expect(loadConfig({ DATA_DIR: dir }).digestSigningKey).toBe(first.digestSigningKey);
    expect(first.ledgerCheckpointDir).toBe(path.join(dir, 'checkpoints'));
  });

  it("is moved out of an older data folder's secrets.json", () => {
    const dir = dataDir();
    const old = testSigningKey('an older data folder');
    const secrets = {
      jwtSecret: 'j'.repeat(48),
      encryptionKey: 'ab'.repeat(32),
      embeddedPostgresPassword: 'p'.repeat(24),
    };
    writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify({ ...secrets, digestSigningKey: old }), {
      mode: 0o600,
    });
    expect(started({ DATA_DIR: dir }).digestSigningKey).toBe(old);
    expect(readFileSync(path.join(dir, 'ledger-signing-key'), 'utf8').trim()).toBe(old);
    expect(secretsOf(dir)).toMatchObject(secrets);
    expect(secretsOf(dir)).not.toHaveProperty('digestSigningKey');
  });

  it('comes from LEDGER_SIGNING_KEY_FILE before DIGEST_SIGNING_KEY, and a file that is no key is refused', () => {
    const dir = dataDir();
    const keyFile = path.join(mkdtempSync(path.join(tmpdir(), 'off-the-data-disk-')), 'ledger.key');
    writeFileSync(keyFile, `${testSigningKey('from the file')}\n`);
    const config = loadConfig({
      DATA_DIR: dir,
      LEDGER_SIGNING_KEY_FILE: keyFile,
      DIGEST_SIGNING_KEY: testSigningKey('from the environment'),
    });
    expect(config.digestSigningKey).toBe(testSigningKey('from the file'));
    writeFileSync(keyFile, 'bm90IGEga2V5');
    expect(() => loadConfig({ DATA_DIR: dir, LEDGER_SIGNING_KEY_FILE: keyFile })).toThrow(
      /LEDGER_SIGNING_KEY_FILE.*not an Ed25519 private key/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, LEDGER_SIGNING_KEY_FILE: `${keyFile}.missing` })).toThrow(
      /cannot read .*ENOENT/,
    );
  });

  it('is refused inside DATA_DIR with a DATABASE_URL, naming LEDGER_SIGNING_KEY_FILE and where to keep it', async () => {
    const databaseUrl = 'postgres://u:p@db.example:5432/service';
    const refusal = (config: ReturnType<typeof loadConfig>) =>
      createService(config).then(
        () => null,
        (err: unknown) => err as Error,
      );
    const dir = dataDir();
    const inside = path.join(dir, 'keys', 'ledger.key');
    mkdirSync(path.dirname(inside));
    writeFileSync(inside, `${testSigningKey('beside the data')}\n`);
    const given = loadConfig({ DATA_DIR: dir, DATABASE_URL: databaseUrl, LEDGER_SIGNING_KEY_FILE: inside });
    expect(given.signingKeyInDataDir).toBe(true);
    const refused = await refusal(given);
    expect(refused).toBeInstanceOf(ConfigError);
    expect(refused!.message).toMatch(
      /^LEDGER_SIGNING_KEY_FILE: the ledger's signing key .*ledger\.key is inside DATA_DIR .*off the data disk.*set LEDGER_SIGNING_KEY_FILE to it$/,
    );
    // the embedded default's own file, from an older start, is refused the same way
    const own = dataDir();
    started({ DATA_DIR: own });
    expect(await refusal(loadConfig({ DATA_DIR: own, DATABASE_URL: databaseUrl }))).toBeInstanceOf(ConfigError);
    // a file elsewhere is the key
    const elsewhere = path.join(mkdtempSync(path.join(tmpdir(), 'off-the-data-disk-')), 'ledger.key');
    writeFileSync(elsewhere, `${testSigningKey('elsewhere')}\n`);
    const apart = loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: databaseUrl, LEDGER_SIGNING_KEY_FILE: elsewhere });
    expect(apart).toMatchObject({ signingKeyInDataDir: false, signingKeyFile: elsewhere });
  });

  it('is never generated for a DATABASE_URL: the service refuses to start, in one line, and says what to set', async () => {
    const config = loadConfig({ DATA_DIR: dataDir(), DATABASE_URL: 'postgres://u:p@db.example:5432/service' });
    expect(config.digestSigningKey).toBeNull();
    const refused = await createService(config).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as Error).message).toMatch(/^LEDGER_SIGNING_KEY_FILE: required with DATABASE_URL[^\n]*$/);
  });
});
