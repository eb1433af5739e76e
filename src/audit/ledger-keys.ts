import {
  checkpointHash,
  checkpointSignatureValid,
  keyIdOf,
  nextKeySignatureValid,
  type LedgerCheckpoint,
} from './ledger-format.ts';

/**
 * A key the chain has used: its id, its Ed25519 public key (base64 SPKI DER), the first seq it signs (0 for the first
 * key, the one after its rotation for the others) and the rotation checkpoint that introduced it (none for the first).
 */
export type ChainKey = {
  keyId: string;
  publicKey: string;
  firstSeq: number;
  introducedBy: { seq: number; hash: string } | null;
};

/** Something wrong with the chain's keys, at a checkpoint. */
export type KeyFinding = { seq: number; problem: string };

export type KeyChain = {
  /** every key in the order the chain took them up, the pinned one first */
  keys: ChainKey[];
  findings: KeyFinding[];
  /** the key every checkpoint after the last one given must be signed with */
  current: ChainKey;
  /** the key in force at a seq: the one its signature must verify with */
  keyAt(seq: number): ChainKey;
};

/**
 * The keys of a chain of checkpoints (in seq order; a part of it will do, as long as it holds every rotation), followed
 * from the key the reader trusts: a rotation checkpoint signed by the key in force whose `nextKeySignature` verifies
 * with its `nextKey` hands over to that key. A checkpoint signed by any other key, or a rotation that does not verify,
 * is a finding, and the key in force stays. Pure: verify-log, the well-known route and the leader's start-up check
 * all read the keys through it.
 */
export function keyChain(checkpoints: readonly LedgerCheckpoint[], pinnedKey: string): KeyChain {
  let current: ChainKey = { keyId: keyIdOf(pinnedKey), publicKey: pinnedKey, firstSeq: 0, introducedBy: null };
  const keys = [current];
  const findings: KeyFinding[] = [];
  for (const c of checkpoints) {
    if (c.keyId !== current.keyId) {
      findings.push({
        seq: c.seq,
        problem: `checkpoint ${c.seq} is signed by key ${c.keyId}, which no rotation introduced (the key in force is ${current.keyId})`,
      });
      continue;
    }
    if (c.nextKey === undefined) {
      if (c.nextKeySignature !== undefined)
        findings.push({ seq: c.seq, problem: `checkpoint ${c.seq} has a nextKeySignature but no nextKey` });
      continue;
    }
    const problem = !checkpointSignatureValid(c, current.publicKey)
      ? `its signature does not verify with key ${current.keyId}`
      : !nextKeySignatureValid(c)
        ? 'its nextKeySignature does not verify with its nextKey'
        : null;
    if (problem) {
      findings.push({ seq: c.seq, problem: `rotation checkpoint ${c.seq} is not followed: ${problem}` });
      continue;
    }
    current = {
      keyId: keyIdOf(c.nextKey),
      publicKey: c.nextKey,
      firstSeq: c.seq + 1,
      introducedBy: { seq: c.seq, hash: checkpointHash(c) },
    };
    keys.push(current);
  }
  const keyAt = (seq: number) => {
    let inForce = keys[0]!;
    for (const k of keys) if (k.firstSeq <= seq) inForce = k;
    return inForce;
  };
  return { keys, findings, current, keyAt };
}
