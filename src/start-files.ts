import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DataFiles } from './config.ts';

const writePrivate = (file: string, text: string) => writeFileSync(file, text, { mode: 0o600 });

/**
 * Writes what loading the configuration found missing from DATA_DIR (src/config.ts, DataFiles): the signing key into
 * its own file first, then secrets.json, so that a crash between the two leaves the key in one place at least. Run
 * once by the start, before the database opens (the embedded database's passwords are among the secrets); running it
 * again writes nothing.
 */
export function writeDataFiles(files: DataFiles): void {
  if (!files.secrets && !files.signingKey) return;
  mkdirSync(files.dataDir, { recursive: true });
  const key = files.signingKey;
  if (key && !existsSync(key.file)) {
    // written aside and renamed over: a crash never leaves half a key
    writePrivate(`${key.file}.tmp`, `${key.key}\n`);
    renameSync(`${key.file}.tmp`, key.file);
  }
  if (!files.secrets) return;
  const file = path.join(files.dataDir, 'secrets.json');
  const text = JSON.stringify(files.secrets, null, 2);
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writePrivate(file, text);
}
