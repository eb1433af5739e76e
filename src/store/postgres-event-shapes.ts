/**
 * How es_events keeps the data of the events a payment writes most often: as a JSON array, the number of the data's
 * shape and then its values, the keys kept once here instead of in every row. A key whose value the row holds already
 * is not stored again: the uuid in the event's stream id (a payment's id in `payment-<id>`), or the event's
 * `occurredAt` (the time the decision was taken, which a payment's events repeat; a sync's metadata is from when it
 * began, its events' times from when it recorded). A uuid is kept as its 16
 * bytes (base64url, 22 characters, not 36) and an instant as its milliseconds.
 *
 * A shape is a released storage format: stored rows name it by its number, so its entry never changes and is never
 * removed (test/store/postgres-event-shapes.unit.test.ts pins them). A new form of data gets a new shape at the end.
 * Data of any other form is stored as it is, as JSON, and an event's data that is itself an array as `[0, data]`.
 * Reading gives back the data as appended (JSON.parse of its JSON), so the audit's leaves, every export and every
 * reader see the same events in either form, and rows written before stay as they were.
 *
 * Only events whose data no SQL reads are shaped (the ledger's SQL fold reads inside the gateway ledger's events).
 */
import { typedInstant } from './postgres-event-metadata.ts';
import { canonicalUuid, shortOfUuid, shortUuid, uuidIn, uuidOfShort } from './short-uuids.ts';

type Shape = {
  readonly type: string;
  readonly keys: readonly string[];
  /** the key whose value is the first uuid of the stream id */
  readonly fromStream?: string;
  /** the key whose value is the metadata's occurredAt */
  readonly fromOccurredAt?: string;
  /** keys whose value is a uuid (lowercase, canonical) or null: kept as its 16 bytes in base64url */
  readonly uuids?: readonly string[];
  /** keys whose value is an instant as toISOString writes it (a year from 1000) or null: kept as milliseconds */
  readonly instants?: readonly string[];
};

// released formats: append only
export const eventShapes: readonly Shape[] = [
  { type: '', keys: [] }, // 0: the data is an array, kept as it is
  {
    type: 'PaymentCreated',
    keys: [
      'paymentId',
      'ownerId',
      'orderId',
      'receivingAccountId',
      'providerCode',
      'type',
      'methodSelection',
      'amount',
      'uniqueCode',
      'totalAmount',
      'accountNumber',
      'qrisPayload',
      'redirectUrl',
      'expiresAt',
      'createdAt',
      'requestHash',
      'gateway',
    ],
    fromStream: 'paymentId',
    fromOccurredAt: 'createdAt',
    uuids: ['ownerId', 'receivingAccountId'],
    instants: ['expiresAt'],
  },
  {
    type: 'PaymentCompleted',
    keys: [
      'paymentId',
      'ownerId',
      'orderId',
      'type',
      'amount',
      'totalAmount',
      'receivingAccountId',
      'mutationId',
      'paidAt',
      'completedAt',
      'gateway',
    ],
    fromStream: 'paymentId',
    fromOccurredAt: 'completedAt',
    uuids: ['ownerId', 'receivingAccountId', 'mutationId'],
    instants: ['paidAt'],
  },
  {
    type: 'PaymentExpired',
    keys: ['paymentId', 'ownerId', 'receivingAccountId', 'expiredAt'],
    fromStream: 'paymentId',
    fromOccurredAt: 'expiredAt',
    uuids: ['ownerId', 'receivingAccountId'],
  },
  {
    type: 'OrderPaymentOpened',
    keys: ['ownerId', 'orderId', 'paymentId', 'openedAt'],
    fromStream: 'ownerId',
    fromOccurredAt: 'openedAt',
    uuids: ['paymentId'],
  },
  {
    type: 'PayableReserved',
    keys: ['accountId', 'paymentId', 'uniqueCode', 'totalAmount', 'vaNumber', 'expiresAt', 'reservedAt'],
    fromStream: 'accountId',
    fromOccurredAt: 'reservedAt',
    uuids: ['paymentId'],
    instants: ['expiresAt'],
  },
  {
    type: 'PayableReleased',
    keys: ['accountId', 'paymentId', 'reason', 'releasedAt'],
    fromStream: 'accountId',
    fromOccurredAt: 'releasedAt',
    uuids: ['paymentId'],
  },
  {
    type: 'MutationRecorded',
    keys: [
      'accountId',
      'mutationId',
      'providerTransactionId',
      'type',
      'amount',
      'description',
      'senderName',
      'reference',
      'occurredAt',
      'recordedAt',
    ],
    fromStream: 'accountId',
    uuids: ['mutationId'],
    instants: ['occurredAt', 'recordedAt'],
  },
  {
    type: 'AccountSynced',
    keys: ['accountId', 'balance', 'syncedAt', 'slot', 'cursor', 'trigger'],
    fromStream: 'accountId',
    instants: ['syncedAt', 'slot'],
  },
  {
    type: 'PaymentMethodChosen',
    keys: ['paymentId', 'type', 'uniqueCode', 'totalAmount', 'accountNumber', 'qrisPayload', 'chosenAt', 'gateway'],
    fromStream: 'paymentId',
    fromOccurredAt: 'chosenAt',
  },
];

/** The first lowercase uuid in a stream id (`payment-<id>`, `payable-<accountId>-<total>`), if any. */
const streamUuid = (streamId: string): string | undefined => uuidIn.exec(streamId)?.[0];

/** How a key's value is kept: as it is, not at all (the stream's uuid, the event's time), or in a shorter form. */
const Kept = { AsIs: 0, StreamUuid: 1, OccurredAt: 2, Uuid: 3, Instant: 4 } as const;
type Kept = (typeof Kept)[keyof typeof Kept];

const keptAs = (s: Shape, key: string): Kept =>
  key === s.fromStream
    ? Kept.StreamUuid
    : key === s.fromOccurredAt
      ? Kept.OccurredAt
      : s.uuids?.includes(key)
        ? Kept.Uuid
        : s.instants?.includes(key)
          ? Kept.Instant
          : Kept.AsIs;

// each shape's keys with how their values are kept, and the shapes of each type
const kept = eventShapes.map(s => s.keys.map(k => keptAs(s, k)));
const storedCount = kept.map(how => how.filter(h => h !== Kept.StreamUuid && h !== Kept.OccurredAt).length);
const shapesByType = new Map<string, number[]>();
eventShapes.forEach((s, n) => {
  if (n > 0) shapesByType.set(s.type, [...(shapesByType.get(s.type) ?? []), n]);
});

// the instants a Date holds
const maxInstantMs = 8.64e15;

/** A value kept in a shorter form, or undefined when it has another form (then the shape does not fit). */
function shorter(how: Kept, value: unknown): unknown {
  if (value === null) return null;
  if (how === Kept.Uuid) return typeof value === 'string' && canonicalUuid.test(value) ? shortOfUuid(value) : undefined;
  return typedInstant(value) ? Date.parse(value) : undefined;
}

/** The value a shorter form stands for. */
function longer(how: Kept, value: unknown): unknown {
  if (how === Kept.Uuid && typeof value === 'string' && shortUuid.test(value)) return uuidOfShort(value);
  if (how === Kept.Instant && typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= maxInstantMs)
    return new Date(value).toISOString();
  return value; // null, or a value changed in the database: read as it is, for the audit to find
}

/** The values `data` is stored with in shape `n`, or null when the data has another form. */
function valuesIn(n: number, data: Record<string, unknown>, streamId: string, occurredAt: string): unknown[] | null {
  const shape = eventShapes[n]!;
  const how = kept[n]!;
  const keys = Object.keys(data);
  if (keys.length !== shape.keys.length) return null;
  const values: unknown[] = [];
  for (let i = 0; i < keys.length; i++) {
    const key = shape.keys[i]!;
    const value = data[key];
    // an undefined value: JSON leaves out its key, but writes null for it in an array
    if (keys[i] !== key || value === undefined) return null;
    switch (how[i]) {
      case Kept.StreamUuid:
        if (value !== streamUuid(streamId)) return null;
        break;
      case Kept.OccurredAt:
        if (value !== occurredAt) return null;
        break;
      case Kept.AsIs:
        values.push(value);
        break;
      default: {
        const short = shorter(how[i]!, value);
        if (short === undefined) return null;
        values.push(short);
      }
    }
  }
  return values;
}

/** What es_events stores of an event's data: its shape's number and values when it has one, else the data itself. */
export function storedData(
  e: { type: string; data: Record<string, unknown>; metadata: { occurredAt: string } },
  streamId: string,
): unknown {
  if (Array.isArray(e.data)) return [0, e.data];
  for (const n of shapesByType.get(e.type) ?? []) {
    const values = valuesIn(n, e.data, streamId, e.metadata.occurredAt);
    if (values) return [n, ...values];
  }
  return e.data;
}

/**
 * An event's data from what es_events stores (parsed): a shape's values with its keys, in its order, and the values
 * taken from the stream id and `occurredAt`; any other data as it is.
 */
export function dataOfStored(stored: unknown, streamId: string, occurredAt: () => string): Record<string, unknown> {
  if (!Array.isArray(stored)) return stored as Record<string, unknown>;
  const [n, ...values] = stored as [number, ...unknown[]];
  if (n === 0) return values[0] as Record<string, unknown>;
  const shape = eventShapes[n];
  if (!shape) throw new Error(`stored event data of unknown shape ${n} in stream ${streamId}`);
  if (values.length !== storedCount[n])
    throw new Error(`stored event data of shape ${n} with ${values.length} values in stream ${streamId}`);
  const data: Record<string, unknown> = {};
  let next = 0;
  shape.keys.forEach((key, i) => {
    const how = kept[n]![i]!;
    data[key] =
      how === Kept.StreamUuid
        ? streamUuid(streamId)
        : how === Kept.OccurredAt
          ? occurredAt()
          : how === Kept.AsIs
            ? values[next++]
            : longer(how, values[next++]);
  });
  return data;
}
