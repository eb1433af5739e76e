import type pg from 'pg';
import type { EventStore, RecordedEvent } from '../store/event-store.ts';
import { addToDigest, dayRoot, signedText, type DigestDay } from './digest-days.ts';
import { verifyDigestSignature } from './digest-signer.ts';
import { listDigests, type StoredDigest } from './digests.ts';
import { keyIdOf } from './ledger-format.ts';
import { keyChain } from './ledger-keys.ts';
import { keyCheckpoints } from './published-keys.ts';

/** A key a day's digest may be signed with: the one its keyId names. */
type DigestKey = { keyId: string; publicKey: string };
import { logEvents } from './stream-pages.ts';

export type DayVerdict = {
  day: string;
  /** ok: as signed; open: the day is not over (not signed yet); pending: not digested yet; else what was found */
  status: 'ok' | 'open' | 'pending' | 'tampered';
  events: number;
  root: string;
  problems: string[];
};

/**
 * `cli verify-digests`: walks the whole log again, day by day as the live digest does, and holds
 * every day's recomputed count and root against the stored digest and its signature, checked with the given public key
 * (not one stored beside the digest: whoever could rewrite the table could store their own). A day whose events were
 * changed, inserted or removed behind the service's back, or whose digest was rewritten, is `tampered`, saying how.
 */
export async function verifyDigests(
  deps: { store: EventStore; pool: pg.Pool },
  publicKey: string,
): Promise<{ days: DayVerdict[]; clean: boolean }> {
  // a day is signed by the chain's key of its time: the keys followed from the given one through the rotations
  const { keys } = keyChain(await keyCheckpoints(deps.pool), publicKey);
  const check = new DigestCheck(await listDigests(deps.pool), keys);
  for await (const e of logEvents(deps.store)) check.add(e);
  return check.finish();
}

/** The same walk fed one event at a time, so `verify-log` checks the days and the chain in one pass over the log. */
export class DigestCheck {
  private readonly stored: Map<string, StoredDigest>;
  private readonly lastStoredDay: string;
  private readonly verdicts: DayVerdict[] = [];
  private current: DigestDay | null = null;

  private readonly keys: readonly DigestKey[];

  constructor(digests: StoredDigest[], keys: string | readonly DigestKey[]) {
    this.keys = typeof keys === 'string' ? [{ keyId: keyIdOf(keys), publicKey: keys }] : keys;
    this.stored = new Map(digests.map(d => [d.day, d]));
    this.lastStoredDay = [...this.stored.keys()].sort().at(-1) ?? '';
  }

  private judge(recomputed: DigestDay, open: boolean) {
    const root = dayRoot(recomputed);
    const digest = this.stored.get(recomputed.day);
    this.stored.delete(recomputed.day);
    const context = { open, digestedLater: recomputed.day < this.lastStoredDay, keys: this.keys };
    this.verdicts.push({
      day: recomputed.day,
      events: recomputed.events,
      root,
      ...verdictOf(recomputed, root, digest, context),
    });
  }

  add(e: RecordedEvent): void {
    const next = addToDigest(this.current, e);
    if (next.closed) this.judge(next.closed, false);
    this.current = next.current;
  }

  finish(): { days: DayVerdict[]; clean: boolean } {
    if (this.current) this.judge(this.current, true);
    this.current = null;
    // digests of days the log no longer has
    for (const digest of this.stored.values())
      this.verdicts.push({
        day: digest.day,
        events: 0,
        root: '',
        status: 'tampered',
        problems: [`digested with ${digest.events} events, none in the log now: they were removed`],
      });
    this.stored.clear();
    const days = [...this.verdicts].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
    return { days, clean: days.every(v => v.status !== 'tampered') };
  }
}

function verdictOf(
  recomputed: DigestDay,
  root: string,
  digest: StoredDigest | undefined,
  context: { open: boolean; digestedLater: boolean; keys: readonly DigestKey[] },
): Pick<DayVerdict, 'status' | 'problems'> {
  if (!digest)
    return context.digestedLater
      ? { status: 'tampered', problems: ['no digest for a day the log has: its events were inserted'] }
      : { status: 'pending', problems: [] };
  if (context.open) {
    // the live digest may be behind the log, never ahead of it
    if (digest.events > recomputed.events)
      return {
        status: 'tampered',
        problems: [`${digest.events} events digested, ${recomputed.events} in the log: events were removed`],
      };
    if (digest.events === recomputed.events && digest.root !== root)
      return { status: 'tampered', problems: ['the root differs from the digested one: events were changed'] };
    return { status: 'open', problems: [] };
  }
  if (digest.signature === null)
    return context.digestedLater
      ? { status: 'tampered', problems: ['the digest of a closed day is not signed'] }
      : { status: 'pending', problems: [] };
  const problems: string[] = [];
  const key = context.keys.find(k => k.keyId === digest.keyId);
  if (!key)
    problems.push(
      `the signature does not verify: it names key ${digest.keyId}, neither the key given nor one a rotation introduced`,
    );
  else if (!verifyDigestSignature(key.publicKey, signedText(digest), digest.signature))
    problems.push(`the signature does not verify with key ${key.keyId}: the digest was rewritten`);
  if (digest.events !== recomputed.events)
    problems.push(
      `${recomputed.events} events in the log, ${digest.events} when signed: events were ${recomputed.events > digest.events ? 'inserted' : 'removed'}`,
    );
  else if (digest.root !== root) problems.push('the root differs from the signed one: events were changed');
  return problems.length === 0 ? { status: 'ok', problems } : { status: 'tampered', problems };
}
