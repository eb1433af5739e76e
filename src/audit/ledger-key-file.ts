import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import { digestSigner, type DigestSigner } from './digest-signer.ts';
import type { ChainSigner } from './ledger-chain.ts';
import { latestLedgerCheckpoint } from './ledger-checkpoint-rows.ts';
import { keyIdOf, type LedgerCheckpoint } from './ledger-format.ts';

/** Where `rotate-signing-key` leaves the new key: beside the key file, until the rotation checkpoint is committed. */
export const nextKeyFile = (file: string): string => `${file}.next`;

/** The chain's leader's view of its signing key; LedgerCheckpoints calls `follow` as it takes the lead, `committed` after. */
export type LedgerSigner = ChainSigner & {
  publicKey: string;
  follow?(db: Queryable): Promise<void>;
  committed?(checkpoints: LedgerCheckpoint[]): void;
};

function signerIn(file: string): DigestSigner | null {
  try {
    return digestSigner(readFileSync(file, 'utf8').trim());
  } catch {
    return null;
  }
}

/** The rename reaches the disk: the directory's entry is synced too. */
function syncDirectory(file: string) {
  const fd = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The signing key as its file holds it, across rotations (docs/auditing.md, "Keys"). `rotate-signing-key` writes the new
 * key to `<file>.next`: while it is there, `next` offers it, so the leader's next cut is the rotation checkpoint; once
 * that commits, `committed` signs on with the new key and renames `.next` over the file. A crash between the commit
 * and the rename leaves the old key in the file and the new one in `.next`: `follow`, as an instance takes the lead,
 * reads which key the chain is at and takes it from the file or, promoting it then, from `.next`; an instance that
 * stood by reloads the file the leader promoted. A key the chain is not at is never signed with: the leader says so
 * and waits. Without a file (DIGEST_SIGNING_KEY) there is no rotation.
 */
export class LedgerKeyFile implements LedgerSigner {
  private held: DigestSigner;
  private pending: { text: string; signer: DigestSigner } | null = null;

  constructor(
    initial: DigestSigner,
    private readonly file: string | null,
    private readonly log: Logger,
  ) {
    this.held = initial;
  }

  get keyId(): string {
    return this.held.keyId;
  }

  get publicKey(): string {
    return this.held.publicKey;
  }

  sign(text: string): string {
    return this.held.sign(text);
  }

  /** The key a pending rotation hands over to, read from `.next` when it is there; null when none is pending. */
  get next(): DigestSigner | null {
    const file = this.file && nextKeyFile(this.file);
    if (!file || !existsSync(file)) return (this.pending = null);
    const text = readFileSync(file, 'utf8').trim();
    if (this.pending?.text === text) return this.pending.signer;
    const signer = signerIn(file);
    if (!signer || signer.keyId === this.held.keyId) {
      if (!signer) this.log.warn({ file }, 'ledger signing key: the pending key is no Ed25519 key; no rotation');
      return null;
    }
    this.pending = { text, signer };
    return signer;
  }

  /** Takes up the key the chain is at (its newest checkpoint's nextKey, else its keyId); refuses any other. */
  async follow(db: Queryable): Promise<void> {
    const latest = await latestLedgerCheckpoint(db);
    if (!latest) return;
    const chainKey = latest.nextKey !== undefined ? keyIdOf(latest.nextKey) : latest.keyId;
    if (chainKey === this.held.keyId) return;
    const fromFile = this.file ? signerIn(this.file) : null;
    const fromNext = this.file ? signerIn(nextKeyFile(this.file)) : null;
    if (fromFile?.keyId === chainKey) this.held = fromFile;
    else if (fromNext?.keyId === chainKey) this.promote(fromNext);
    else
      throw new Error(
        `ledger checkpoints: the chain is signed by key ${chainKey}, this instance holds key ${this.held.keyId}${this.file ? ` (${this.file})` : ''}, which no rotation introduced; a key changes only by npm run cli -- rotate-signing-key; nothing is signed with it`,
      );
    this.log.info({ keyId: chainKey }, `ledger signing key ${chainKey}: taken up as the chain's key`);
  }

  /** After a commit: a rotation among the checkpoints hands over to the pending key, and its file replaces the old. */
  committed(checkpoints: LedgerCheckpoint[]): void {
    const rotation = checkpoints.filter(c => c.nextKey !== undefined).at(-1);
    const pending = this.pending?.signer;
    if (!rotation || !pending || rotation.nextKey !== pending.publicKey) return;
    this.promote(pending);
    this.log.info(
      { keyId: pending.keyId, seq: rotation.seq, retired: rotation.keyId },
      `ledger signing key rotated at checkpoint ${rotation.seq}: ${rotation.keyId} retired, ${pending.keyId} signs from checkpoint ${rotation.seq + 1}`,
    );
  }

  private promote(signer: DigestSigner): void {
    this.held = signer;
    this.pending = null;
    if (!this.file) return;
    try {
      renameSync(nextKeyFile(this.file), this.file);
      syncDirectory(this.file);
    } catch (err) {
      // the chain is at the new key already: the next lead takes it from .next again
      this.log.error({ err, file: this.file }, 'ledger signing key: the new key could not replace the key file');
    }
  }
}
