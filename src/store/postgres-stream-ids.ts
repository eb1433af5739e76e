/**
 * How es_events and es_streams keep a stream id, and es_events an event's causation and actor: each canonical uuid in
 * the text as `~` and its 16 bytes in base64url (short-uuids.ts), 23 characters instead of 36. `payment-<uuid>` is
 * kept in 31 characters instead of 44, in the row and again in the (stream_id, revision) index. The category before
 * the uuid stays as it is, so a prefix such as `payment-` finds both forms.
 *
 * Reading gives back the id as appended: every reader, the export and the audit's leaves see the ids they saw before.
 * Rows written before keep their long ids (the log is never rewritten): a stream's reads and heads look up both forms
 * (streamIdForms), and its new events take the short one.
 *
 * `~` then 22 base64url characters means a uuid: no id written before holds a `~` (every stream id, actor and causation
 * is made of a category, uuids, hashes and numbers). A stream id that holds one in that form is refused; an actor or a
 * causation that holds a `~` keeps its metadata as JSON instead (postgres-event-metadata.ts).
 *
 * The gateway ledger's streams keep their ids as they are: the ledger's SQL fold and the period balances find them by
 * their text.
 */
import { shortOfUuid, shortUuid, uuidIn, uuidOfShort } from './short-uuids.ts';

const uuidInText = new RegExp(uuidIn.source, 'g');
// a short uuid after its mark
const shortInText = new RegExp(`~(${shortUuid.source.slice(1, -1)})`, 'g');
const keptAsItIs = 'gateway-';

/** The text with each canonical uuid shortened, or null when it holds a `~` already (then it has no short form). */
export function shortIds(text: string): string | null {
  if (text.includes('~')) return null;
  return text.replace(uuidInText, u => `~${shortOfUuid(u)}`);
}

/** The text a shortIds text stands for; a text without a `~` (every one written before) is itself. */
export function longIds(stored: string): string {
  return stored.includes('~') ? stored.replace(shortInText, (_, short: string) => uuidOfShort(short)) : stored;
}

/** The id es_events and es_streams keep a stream's new events and row under. */
export function storedStreamId(streamId: string): string {
  if (streamId.startsWith(keptAsItIs)) return streamId;
  const short = shortIds(streamId);
  if (short !== null) return short;
  if (longIds(streamId) !== streamId)
    throw new Error(`stream id ${streamId} holds "~" and a uuid's 22 characters, the form es_events keeps a uuid in`);
  return streamId;
}

/**
 * The ids of a stream in es_events and es_streams: the one it is kept under now, and the one rows written before
 * short ids hold, null when they are the same.
 */
export function streamIdForms(streamId: string): { stored: string; legacy: string | null } {
  const stored = storedStreamId(streamId);
  return { stored, legacy: stored === streamId ? null : streamId };
}
