import { createHash, createPublicKey, verify } from 'node:crypto';
import type { Migration } from '../db/migrations.ts';
import { query, type Queryable } from '../db/pool.ts';
import { checkpointHash, type LedgerCheckpoint } from './ledger-format.ts';
import type { LogProblem } from './log-verifier.ts';

/**
 * Witnesses' cosignatures of checkpoints (docs/auditing.md, Witnesses): a witness that checked a checkpoint extends the
 * last one it vouched for signs `ledger-cosignature:v1:<checkpoint hash>` with its own Ed25519 key. The service keeps
 * what it is posted and publishes it beside the checkpoint; it trusts none of it: verifiers check each signature with
 * the witness keys they were given themselves.
 */
export type Cosignature = { checkpointHash: string; seq: number; witnessKeyId: string; signature: string };
export type StoredCosignature = Cosignature & { receivedAt: string };

export const cosignedText = (hash: string): string => `ledger-cosignature:v1:${hash}`;

/** A key's id: the first 16 hex digits of SHA-256 of its SPKI DER, as the ledger's own key's. */
export const witnessKeyIdOf = (publicKey: string): string =>
  createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex').slice(0, 16);

/** Append-only (owned by the owner once es_protect_append_only takes it): the role adds cosignatures, never rewrites one. */
export const ledgerCosignaturesMigration: Migration = {
  name: 'ledger-cosignatures',
  steps: [
    `create table if not exists ledger_cosignatures (
       checkpoint_hash text not null,
       seq bigint not null,
       witness_key_id text not null,
       signature text not null,
       received_at timestamptz not null,
       primary key (checkpoint_hash, witness_key_id)
     );
     create index if not exists ledger_cosignatures_seq on ledger_cosignatures (seq);
     select es_protect_append_only('ledger_cosignatures'::regclass)
      where to_regproc('es_protect_append_only') is not null
        and not exists (select 1 from pg_trigger where tgrelid = 'ledger_cosignatures'::regclass and tgname = 'es_append_only');`,
  ],
};

type Row = { checkpoint_hash: string; seq: string; witness_key_id: string; signature: string; received_at: Date };
const stored = (r: Row): StoredCosignature => ({
  checkpointHash: r.checkpoint_hash,
  seq: Number(r.seq),
  witnessKeyId: r.witness_key_id,
  signature: r.signature,
  receivedAt: r.received_at.toISOString(),
});

/** Keeps a cosignature; a second post of the same (checkpoint, witness) keeps the first. Answers whether it was new. */
export async function saveCosignature(db: Queryable, c: Cosignature, receivedAt: Date): Promise<boolean> {
  const r = await query(
    db,
    'SaveLedgerCosignature',
    `insert into ledger_cosignatures (checkpoint_hash, seq, witness_key_id, signature, received_at)
     values ($1, $2, $3, $4, $5) on conflict do nothing`,
    [c.checkpointHash, c.seq, c.witnessKeyId, c.signature, receivedAt],
  );
  return r.rowCount === 1;
}

/** The cosignatures of one checkpoint, oldest first. */
export async function cosignaturesOf(db: Queryable, hash: string): Promise<StoredCosignature[]> {
  const r = await query<Row>(
    db,
    'LedgerCosignaturesOf',
    `select checkpoint_hash, seq::text, witness_key_id, signature, received_at from ledger_cosignatures
      where checkpoint_hash = $1 order by received_at, witness_key_id`,
    [hash],
  );
  return r.rows.map(stored);
}

/** Every cosignature from seq `fromSeq` on, in seq order; none on a database without the table. */
export async function listCosignatures(db: Queryable, fromSeq = 0): Promise<StoredCosignature[]> {
  const exists = await query<{ exists: boolean }>(
    db,
    'LedgerCosignaturesExist',
    `select to_regclass('ledger_cosignatures') is not null as exists`,
  );
  if (!exists.rows[0]!.exists) return [];
  const r = await query<Row>(
    db,
    'ListLedgerCosignatures',
    `select checkpoint_hash, seq::text, witness_key_id, signature, received_at from ledger_cosignatures
      where seq >= $1 order by seq, received_at, witness_key_id`,
    [fromSeq],
  );
  return r.rows.map(stored);
}

function cosignatureValid(c: Cosignature, publicKey: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    return verify(null, Buffer.from(cosignedText(c.checkpointHash), 'utf8'), key, Buffer.from(c.signature, 'base64'));
  } catch {
    return false;
  }
}

/**
 * The checkpoints each witness key given has not vouched for, and the cosignatures the log contradicts. A witness
 * cosigns the newest checkpoint it checked, and checks each against the one before, so its newest cosignature vouches
 * for every checkpoint up to it through the chain (whose links verify-log checks); the ones after are not cosigned. A
 * cosignature whose seq holds another checkpoint is a fork; one past the log's newest checkpoint, a rollback. A
 * cosignature that does not verify with the key is nobody's word and counts for nothing.
 */
export function cosignatureProblems(
  checkpoints: LedgerCheckpoint[],
  cosignatures: Cosignature[],
  witnessKeys: string[],
): LogProblem[] {
  const bySeq = new Map(checkpoints.map(c => [c.seq, c]));
  const last = checkpoints.at(-1);
  const problems: LogProblem[] = [];
  for (const key of witnessKeys) {
    const keyId = witnessKeyIdOf(key);
    const witness = `witness ${keyId}`;
    let newest = -1;
    for (const c of cosignatures) {
      if (c.witnessKeyId !== keyId || !cosignatureValid(c, key)) continue;
      const checkpoint = bySeq.get(c.seq);
      const base = { at: `checkpoint ${c.seq}`, seq: c.seq, index: checkpoint?.from ?? last?.to ?? 0 };
      if (!checkpoint)
        problems.push({
          ...base,
          problem: `${witness} cosigned checkpoint ${c.seq} (${c.checkpointHash.slice(0, 16)}…), which the log no longer has: it was rolled back`,
        });
      else if (checkpointHash(checkpoint) !== c.checkpointHash)
        problems.push({
          ...base,
          problem: `contradicts the checkpoint ${witness} cosigned for seq ${c.seq} (${c.checkpointHash.slice(0, 16)}…): the chain was forked or re-signed`,
        });
      else newest = Math.max(newest, c.seq);
    }
    const first = checkpoints.find(c => c.seq > newest);
    if (first && last)
      problems.push({
        at: `checkpoint ${first.seq}`,
        index: first.from,
        seq: first.seq,
        problem: `checkpoints ${first.seq} to ${last.seq} are not cosigned by ${witness}${newest < 0 ? ' (it cosigned none)' : ` (its newest: ${newest})`}`,
      });
  }
  return problems;
}
