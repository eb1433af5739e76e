import fc from 'fast-check';
import type { EventMetadata } from '../../src/store/event-store.ts';
import { eventMetadataOf, storedMetadata } from '../../src/store/postgres-event-metadata.ts';
import { shortOfUuid } from '../../src/store/short-uuids.ts';
import { hostileText } from '../support/hostile-text.ts';

const instant = fc.date({
  min: new Date(-62_198_755_200_000),
  max: new Date(253_402_300_799_999),
  noInvalidDate: true,
});

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** Text of toISOString's form, its fields in range or just out of it (a 30th of February, an hour 24, a year 999). */
export const isoShaped = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 995, max: 1005 }),
      fc.integer({ min: 1000, max: 9999 }),
      fc.constantFrom(1900, 2000, 2024, 2100),
    ),
    fc.integer({ min: 0, max: 13 }),
    fc.integer({ min: 0, max: 32 }),
    fc.integer({ min: 0, max: 24 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 60 }),
    fc.integer({ min: 0, max: 999 }),
  )
  .map(
    ([y, mo, d, h, mi, s, ms]) =>
      `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}Z`,
  );

/** occurredAt as the service writes it (toISOString), and as other writers or odd dates may have it. */
const occurredAt = fc.oneof(
  { weight: 30, arbitrary: instant.map(d => d.toISOString()) },
  fc.date({ noInvalidDate: true }).map(d => d.toISOString()), // six-digit and negative years
  instant.map(d =>
    d
      .toISOString()
      .replace('.000Z', 'Z')
      .replace(/\.\d{3}Z$/, 'Z'),
  ),
  instant.map(d => d.toISOString().replace('Z', '+00:00')),
  instant.map(d => d.toISOString().replace('Z', '123Z')),
  instant.map(d => d.toISOString().toLowerCase()),
  fc.constantFrom('2026-02-30T00:00:00.000Z', '2026-11-29T23:59:60.000Z', '0999-12-31T23:59:59.999Z', '', 'yesterday'),
  isoShaped,
  hostileText,
  fc.integer(),
);

const uuid = fc.uuid();
/** Ids in text (kept with their uuids short), and texts holding the `~` that short form uses, which are not. */
const idsInText = fc.oneof(
  fc.tuple(fc.constantFrom('payment-', 'order-', 'user:', ''), uuid, fc.nat()).map(([p, u, n]) => `${p}${u}@${n}`),
  fc.tuple(uuid, uuid).map(([a, b]) => `order-${a}-${b}`),
  uuid.map(u => `user:~${shortOfUuid(u)}`),
  fc.tuple(fc.string(), uuid).map(([s, u]) => `${s}~${u}`),
  fc.string().map(s => `~${s}`),
);
const correlationId = fc.oneof(
  { weight: 20, arbitrary: uuid },
  uuid.map(u => u.toUpperCase()),
  uuid.map(u => u.replaceAll('-', '')),
  uuid.map(u => `{${u}}`),
  hostileText,
  fc.constant(null),
);
const causationId = fc.oneof(
  { weight: 10, arbitrary: fc.constant(null) },
  { weight: 10, arbitrary: fc.tuple(fc.string(), fc.nat()).map(([s, n]) => `${s}@${n}`) },
  { weight: 5, arbitrary: idsInText },
  uuid,
  hostileText,
  fc.integer(),
);
const actor = fc.oneof(
  { weight: 10, arbitrary: uuid.map(u => `user:${u}`) },
  { weight: 5, arbitrary: idsInText },
  fc.constantFrom('system:payment-expiry', 'payer', ''),
  hostileText,
  fc.constant(null),
);

/** Null mostly, now and then a value of `arbitrary`. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

/**
 * Metadata as an append may be given it: mostly as the service makes it, and with odd values, a known key missing
 * (never eventId, which its column needs), an extra key, or the keys in another order.
 */
export const anyMetadata: fc.Arbitrary<EventMetadata> = fc
  .record({
    eventId: uuid,
    correlationId,
    causationId,
    actor,
    occurredAt,
    missing: rarely(fc.constantFrom('correlationId', 'causationId', 'actor', 'occurredAt')),
    extra: rarely(
      fc.tuple(fc.constantFrom('tenant', 'eventId2', 'occurred_at'), fc.oneof(fc.string(), fc.constant(undefined))),
    ),
    order: rarely(fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 5, maxLength: 5 })),
  })
  .map(({ missing, extra, order, ...known }) => {
    let entries: [string, unknown][] = Object.entries(known).filter(([key]) => key !== missing);
    if (order) entries = order.map(i => Object.entries(known)[i]!).filter(([key]) => key !== missing);
    if (extra) entries.push(extra);
    return Object.fromEntries(entries) as EventMetadata;
  });

/** The metadata of `m` kept in its JSON form: stored, parsed and read back (what every reader sees of that form). */
export const metadataFromJson = (m: EventMetadata, eventId = m.eventId) =>
  eventMetadataOf(JSON.parse(JSON.stringify(storedMetadata(m))) as Record<string, unknown>, eventId);
