import { generateKeyPairSync } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { digestSigner } from '../audit/digest-signer.ts';
import { latestLedgerCheckpoint } from '../audit/ledger-checkpoint-rows.ts';
import { keyIdOf } from '../audit/ledger-format.ts';
import { nextKeyFile } from '../audit/ledger-key-file.ts';
import type { Config } from '../config.ts';

type Out = { print: (text: string) => void; complain: (text: string) => void };
const console_: Out = { print: text => console.log(text), complain: text => console.error(text) };

/** Written aside, synced and renamed into place: a crash leaves no half key, and the rename reaches the disk. */
function writeKey(file: string, privateKey: string) {
  const synced = (name: string, flags: string, write?: (fd: number) => void) => {
    const fd = openSync(name, flags, 0o600);
    try {
      write?.(fd);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  synced(`${file}.tmp`, 'w', fd => writeSync(fd, `${privateKey}\n`));
  renameSync(`${file}.tmp`, file);
  synced(path.dirname(file), 'r');
}

/**
 * `rotate-signing-key`: a new Ed25519 key in `<key file>.next`, beside the running service's key file. Nothing else
 * changes here: the chain's leader makes its next checkpoint the rotation (signed by the old key and the new, naming
 * the new one), then signs with the new key alone and renames `.next` over the key file (src/audit/ledger-key-file.ts),
 * so the rotation happens once, by whichever instance leads. Run again while one is pending, it says so.
 */
export async function rotateSigningKeyCommand(
  pool: pg.Pool,
  config: Pick<Config, 'signingKeyFile' | 'digestSigningKey'>,
  out: Out = console_,
): Promise<number> {
  const file = config.signingKeyFile;
  if (!file || !config.digestSigningKey) {
    out.complain(
      'rotate-signing-key: the ledger key must be in a file the service reads (LEDGER_SIGNING_KEY_FILE, or DATA_DIR/ledger-signing-key in embedded mode); a DIGEST_SIGNING_KEY in the environment cannot be rotated in place: move it to a file first',
    );
    return 2;
  }
  const current = digestSigner(config.digestSigningKey);
  const latest = await latestLedgerCheckpoint(pool);
  const chainKey = latest ? (latest.nextKey !== undefined ? keyIdOf(latest.nextKey) : latest.keyId) : current.keyId;
  const pendingFile = nextKeyFile(file);
  if (existsSync(pendingFile)) {
    out.complain(
      `rotate-signing-key: a rotation is pending already (${pendingFile}): the chain's next checkpoint makes it, once the leader signs again`,
    );
    return 0;
  }
  if (chainKey !== current.keyId) {
    out.complain(
      `rotate-signing-key: the chain is signed by key ${chainKey}, ${file} holds key ${current.keyId}: a rotation starts from the chain's key`,
    );
    return 1;
  }
  const privateKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' });
  writeKey(pendingFile, privateKey.toString('base64'));
  const next = digestSigner(privateKey.toString('base64'));
  out.print(
    JSON.stringify({ keyId: next.keyId, publicKey: next.publicKey, replaces: current.keyId, pending: pendingFile }),
  );
  out.complain(
    `rotate-signing-key: key ${next.keyId} is pending: the next checkpoint (within a minute of the next event) is signed by ${current.keyId} and ${next.keyId} and names the new key; every later one is ${next.keyId}'s, and ${file} then holds it. GET /.well-known/ledger-keys lists both.`,
  );
  return 0;
}
