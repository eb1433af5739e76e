import { parseRecorded } from '../events/event.ts';
import type { RecordedEvent } from '../store/event-store.ts';
import { positionText } from '../store/subscriber.ts';

/** Fields that are secrets even hashed: never shown to an auditor. */
const hiddenFields = new Set(['passwordHash', 'keyHash']);

/** An AES-GCM sealed value (credentials, provider sessions, webhook secrets): its ciphertext means nothing to a reader. */
const isSealed = (value: object) => {
  const keys = Object.keys(value);
  return keys.length === 3 && ['iv', 'tag', 'data'].every(k => keys.includes(k));
};

function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (value === null || typeof value !== 'object') return value;
  if (isSealed(value)) return '[sealed]';
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, hiddenFields.has(k) ? '[redacted]' : redacted(v)]),
  );
}

/**
 * An event as an auditor reads it: where it is in its stream and in the log, its payload as this
 * code reads it (upcast to the current version) with secrets and sealed values replaced, and its metadata: who, when,
 * why, caused by what. An event this code cannot read is shown as stored, with the reason.
 */
export function auditView(recorded: RecordedEvent) {
  let data: unknown = recorded.data;
  let unreadable: string | null = null;
  try {
    const parsed = parseRecorded(recorded);
    if (parsed) data = parsed.data;
    else unreadable = 'no event of this type is declared';
  } catch (err) {
    unreadable = err instanceof Error ? err.message : String(err);
  }
  return {
    streamId: recorded.streamId,
    revision: recorded.revision,
    position: positionText(recorded.position),
    type: recorded.type,
    version: recorded.version,
    data: redacted(data),
    metadata: recorded.metadata,
    ...(unreadable ? { unreadable } : {}),
  };
}

export type AuditView = ReturnType<typeof auditView>;
