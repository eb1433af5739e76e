import { query, type Queryable } from '../db/pool.ts';
import { rotationCheckpointsWhere } from '../db/ledger-key-rotation.ts';
import { ledgerCheckpoint, type LedgerCheckpoint } from './ledger-format.ts';
import { keyChain, type ChainKey, type KeyChain } from './ledger-keys.ts';

/**
 * The checkpoints that say which keys the chain took up: the first, every rotation (found by their index) and the
 * newest, in seq order; malformed rows left out (verify-log and the leader report them).
 */
export async function keyCheckpoints(db: Queryable): Promise<LedgerCheckpoint[]> {
  const table = await query<{ exists: boolean }>(
    db,
    'LedgerTableExists',
    `select to_regclass('ledger_checkpoints') is not null as exists`,
  );
  if (!table.rows[0]!.exists) return [];
  const r = await query<{ seq: string; checkpoint: unknown }>(
    db,
    'LedgerKeyCheckpoints',
    `(select seq::text, checkpoint from ledger_checkpoints order by seq limit 1)
     union all (select seq::text, checkpoint from ledger_checkpoints order by seq desc limit 1)
     union all (select seq::text, checkpoint from ledger_checkpoints where ${rotationCheckpointsWhere})`,
  );
  const bySeq = new Map<number, LedgerCheckpoint>();
  for (const row of r.rows) {
    const parsed = ledgerCheckpoint.safeParse(row.checkpoint);
    if (parsed.success && String(parsed.data.seq) === row.seq) bySeq.set(parsed.data.seq, parsed.data);
  }
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/**
 * Every key the chain has used, as its own rows say: from the key that signed the first checkpoint (its public key as
 * the owner registered it in ledger_keys) through each rotation. Before the first checkpoint, the service's own key
 * (null without one).
 */
export async function publishedKeys(db: Queryable, ownKey?: string): Promise<KeyChain | null> {
  const checkpoints = await keyCheckpoints(db);
  const first = checkpoints[0];
  const registered = first
    ? (
        await query<{ public_key: string }>(
          db,
          'FirstLedgerKey',
          'select public_key from ledger_keys where key_id = $1',
          [first.keyId],
        )
      ).rows[0]?.public_key
    : undefined;
  const firstKey = registered ?? ownKey;
  return firstKey ? keyChain(checkpoints, firstKey) : null;
}

/** The keys a checkpoint's readers need beside it: the one it is signed by and, on a rotation, the one it hands over to. */
export function keysOfCheckpoint(chain: KeyChain, c: { seq: number }): ChainKey[] {
  const signing = chain.keyAt(c.seq);
  const next = chain.keys.find(k => k.introducedBy?.seq === c.seq);
  return next ? [signing, next] : [signing];
}
