import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { writeDataFiles } from '../src/start-files.ts';
import { testSigningKey } from './support/signing-key.ts';

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'svc-start-files-'));

/** Every file under `dir` with its bytes and mode: what loading must leave as it found. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dir, name);
    const stat = statSync(file);
    files[name] = stat.isDirectory() ? 'dir' : `${(stat.mode & 0o777).toString(8)} ${readFileSync(file, 'utf8')}`;
  }
  return files;
}

describe("the data folder's files", () => {
  it('are not written by loading the configuration, however often', () => {
    const dir = dataDir();
    loadConfig({ DATA_DIR: dir });
    loadConfig({ DATA_DIR: dir });
    expect(snapshot(dir)).toEqual({});
    // a folder that does not exist yet is not made either
    const missing = path.join(dir, 'not-yet');
    expect(loadConfig({ DATA_DIR: missing }).signingKeyInDataDir).toBe(true);
    expect(snapshot(dir)).toEqual({});
  });

  it('are not changed by loading an older folder whose secrets.json holds the signing key and lacks a secret', () => {
    const dir = dataDir();
    const old = { jwtSecret: 'j'.repeat(48), encryptionKey: 'ab'.repeat(32), digestSigningKey: testSigningKey('old') };
    writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify(old), { mode: 0o600 });
    const before = snapshot(dir);
    expect(loadConfig({ DATA_DIR: dir }).digestSigningKey).toBe(old.digestSigningKey);
    loadConfig({ DATA_DIR: dir });
    expect(snapshot(dir)).toEqual(before);
  });

  it('are made by the start: the secrets and the signing key, readable by the owner only; a second start leaves them as they are', () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir });
    writeDataFiles(config.dataFiles);
    expect(Object.keys(snapshot(dir)).sort()).toEqual(['ledger-signing-key', 'secrets.json']);
    const secrets = JSON.parse(readFileSync(path.join(dir, 'secrets.json'), 'utf8')) as Record<string, string>;
    expect(secrets).toEqual({
      jwtSecret: config.jwtSecret,
      encryptionKey: config.encryptionKey,
      embeddedPostgresPassword: config.embeddedPostgresPassword,
      serviceRolePassword: config.serviceRolePassword,
    });
    expect(readFileSync(path.join(dir, 'ledger-signing-key'), 'utf8')).toBe(`${config.digestSigningKey}\n`);
    for (const file of ['secrets.json', 'ledger-signing-key'])
      expect(statSync(path.join(dir, file)).mode & 0o777).toBe(0o600);
    const made = snapshot(dir);
    const again = loadConfig({ DATA_DIR: dir });
    expect(again).toMatchObject({ dataFiles: { secrets: null, signingKey: null } });
    expect(again.jwtSecret).toBe(config.jwtSecret);
    writeDataFiles(again.dataFiles);
    writeDataFiles(config.dataFiles); // the first start's again: what is there stays
    expect(snapshot(dir)).toEqual(made);
  });

  it('with DATABASE_URL hold the secrets and no generated signing key', () => {
    const dir = dataDir();
    const config = loadConfig({ DATA_DIR: dir, DATABASE_URL: 'postgres://u:p@db.example:5432/service' });
    writeDataFiles(config.dataFiles);
    expect(config.digestSigningKey).toBeNull();
    expect(Object.keys(snapshot(dir))).toEqual(['secrets.json']);
  });
});
