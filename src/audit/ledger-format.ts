import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import type { RecordedEvent } from '../store/event-store.ts';
import { canonicalJson } from './merkle.ts';

/**
 * The ledger's fixed formats: the event leaf v2 and the signed checkpoint. The export and an outsider's
 * verifier (docs/auditing.md) are built against exactly these bytes: change nothing here without a new version.
 */

const sha256hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Fields whose values are replaced by their commitment wherever they appear. */
const committedFields = new Set(['passwordHash', 'keyHash']);

/**
 * The keys of which one at least is in any value that `committed` changes (a committed field, or a sealed value's iv):
 * a value whose canonical JSON names none of them is its own committed form.
 */
export const committingKeys: readonly string[] = [...committedFields, 'iv'];

/** An AES-GCM sealed value: an object whose keys are exactly iv, tag and data. */
const isSealed = (value: object) => {
  const keys = Object.keys(value);
  return keys.length === 3 && keys.includes('iv') && keys.includes('tag') && keys.includes('data');
};

const commitment = (value: unknown) => ({ $commitment: sha256hex(canonicalJson(value)) });

/**
 * A value with every sealed value and every passwordHash or keyHash replaced by `{"$commitment": sha256hex(canonical
 * JSON)}`: each is high-entropy (random-IV ciphertext, argon2 hash, hash of a random key), so an unsalted commitment
 * reveals nothing, and an export can carry it in place of the secret while the roots still recompute.
 */
export function committed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(committed);
  if (value === null || typeof value !== 'object') return value;
  if (isSealed(value)) return commitment(value);
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, committedFields.has(k) ? commitment(v) : committed(v)]),
  );
}

/** An event's leaf, version 2: as stored (not upcast), its secrets committed; its position in the log is not in it, its order is. */
export const eventLeafV2 = (e: RecordedEvent): string =>
  canonicalJson({
    streamId: e.streamId,
    revision: e.revision,
    type: e.type,
    version: e.version,
    data: committed(e.data),
    metadata: e.metadata,
  });

/** The prev of the first checkpoint. */
export const genesisHash = '0'.repeat(64);

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const index = z.number().int().min(0);

/** A signed checkpoint of the log: the events [from, to) in log order by their Merkle root, chained to the one before. */
export const ledgerCheckpoint = z
  .object({
    v: z.literal(1),
    seq: index,
    from: index,
    to: index,
    events: index,
    root: hex64,
    prev: hex64,
    at: z.string(),
    lastPosition: z.string(),
    keyId: z.string(),
    signature: z.string(),
    nextKey: z
      .string()
      .optional()
      .describe('A rotation: the Ed25519 key (base64 SPKI DER) that signs every checkpoint after this one; signed'),
    nextKeySignature: z
      .string()
      .optional()
      .describe("A rotation: the new key's signature over the same signed text (base64), not itself signed"),
  })
  .strict();
export type LedgerCheckpoint = z.infer<typeof ledgerCheckpoint>;
export type UnsignedCheckpoint = Omit<LedgerCheckpoint, 'signature' | 'nextKeySignature'>;

/**
 * What a checkpoint's signature covers, and its hash is taken of. `nextKey` is in it only on a rotation: canonicalJson
 * leaves an undefined member out, so every other checkpoint keeps its bytes.
 */
export const checkpointSignedText = (c: UnsignedCheckpoint | LedgerCheckpoint): string => {
  const { v, seq, from, to, events, root, prev, at, lastPosition, keyId, nextKey } = c;
  return `ledger-checkpoint:v1:${canonicalJson({ v, seq, from, to, events, root, prev, at, lastPosition, keyId, nextKey })}`;
};

/** A checkpoint's hash: the next one's prev. */
export const checkpointHash = (c: UnsignedCheckpoint | LedgerCheckpoint): string => sha256hex(checkpointSignedText(c));

/** Signs a checkpoint with the ledger's key; a rotation's (`nextKey` set) also with the new key, `next`. */
export function signCheckpoint(
  c: UnsignedCheckpoint,
  signer: { sign(text: string): string },
  next?: { sign(text: string): string },
): LedgerCheckpoint {
  const text = checkpointSignedText(c);
  const signature = signer.sign(text);
  return c.nextKey === undefined || !next
    ? { ...c, signature }
    : { ...c, signature, nextKeySignature: next.sign(text) };
}

/** A public key's id: the first 16 hex digits of the SHA-256 of its DER (base64 SPKI DER given). */
export const keyIdOf = (publicKey: string): string =>
  createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex').slice(0, 16);

const publicKeys = new Map<string, KeyObject | null>();

/** The key of a base64 SPKI DER text, parsed once (a year of checkpoints is half a million verifications), or null. */
function publicKeyOf(base64: string): KeyObject | null {
  let key = publicKeys.get(base64);
  if (key === undefined) {
    try {
      key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
      if (key.asymmetricKeyType !== 'ed25519') key = null;
    } catch {
      key = null;
    }
    publicKeys.set(base64, key);
  }
  return key;
}

/** Whether a public key is an Ed25519 key as base64 SPKI DER. */
export const isEd25519PublicKey = (base64: string): boolean => publicKeyOf(base64) !== null;

function signedBy(c: LedgerCheckpoint, publicKey: string, signature: string): boolean {
  const key = publicKeyOf(publicKey);
  if (!key) return false;
  try {
    return verify(null, Buffer.from(checkpointSignedText(c), 'utf8'), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** Whether the checkpoint's signature is the given public key's (base64 SPKI DER); a bad key or signature is false. */
export const checkpointSignatureValid = (c: LedgerCheckpoint, publicKey: string): boolean =>
  signedBy(c, publicKey, c.signature);

/** Whether a rotation's `nextKeySignature` is its `nextKey`'s over the signed text; false on any other checkpoint. */
export const nextKeySignatureValid = (c: LedgerCheckpoint): boolean =>
  c.nextKey !== undefined && c.nextKeySignature !== undefined && signedBy(c, c.nextKey, c.nextKeySignature);
