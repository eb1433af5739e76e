import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EventMetadata } from '../../src/store/event-store.ts';
import { appendedMetadata, metadataOfRow, type AppendedMetadata } from '../../src/store/postgres-event-metadata.ts';
import { anyMetadata, isoShaped, metadataFromJson } from './event-metadata.arbitrary.ts';

/** A text column: PostgreSQL's text holds no NUL and no lone surrogate (UTF-8), and refuses them. */
function textColumn(value: unknown): string {
  if (typeof value !== 'string') throw new Error(`a text column is given ${typeof value}`);
  if (/\0/.test(value) || !Buffer.from(value, 'utf8').toString('utf8').includes(value))
    throw new Error('a text column cannot hold it');
  return value;
}

/** A uuid column: what it gives back of what it takes (any case, hyphens or not, braces), as its text. */
function uuidColumn(value: string): string {
  const hex = value.replace(/^\{(.*)\}$/, '$1').replaceAll('-', '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`not a uuid: ${value}`);
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A timestamptz column read as metadataColumnsSql formats it: milliseconds, UTC, a year of four digits. */
function instantColumn(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`not an instant: ${value}`);
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  // to_char writes the year of the common era without its sign: 1 BC (toISOString's 0000) reads back as 0001
  const yyyy = String(year <= 0 ? 1 - year : year).padStart(4, '0');
  return `${yyyy}${date.toISOString().replace(/^[+-]?\d+/, '')}`;
}

/** What a reader gets back of the form an append sent, through the model columns above. */
function readBack(sent: AppendedMetadata, eventId: string): EventMetadata {
  const wire = JSON.parse(JSON.stringify(sent)) as AppendedMetadata;
  if ('metadata' in wire)
    return metadataOfRow(eventId, JSON.parse(wire.metadata) as Record<string, unknown>, null, null, null, null);
  return metadataOfRow(
    eventId,
    null,
    uuidColumn(wire.correlation_id),
    wire.causation_id === null ? null : textColumn(wire.causation_id),
    textColumn(wire.actor),
    instantColumn(wire.occurred_at),
  );
}

describe('the form an event metadata is appended in', () => {
  it('reads back as its JSON form reads back: same keys, same order, same values', () => {
    fc.assert(
      fc.property(anyMetadata, m => {
        const back = readBack(appendedMetadata(m), m.eventId);
        expect(JSON.stringify(back)).toBe(JSON.stringify(metadataFromJson(m)));
        expect(back).toStrictEqual(metadataFromJson(m));
      }),
      { numRuns: 2000 },
    );
  });

  it('types an occurredAt exactly when toISOString gives it back, from the year 1000', () => {
    fc.assert(
      fc.property(isoShaped, occurredAt => {
        const m: EventMetadata = {
          eventId: '018f2f0e-3c4b-7d2e-9a1b-2c3d4e5f6a7b',
          correlationId: '9b2f1c3e-8a7d-4e6f-b5c4-d3e2f1a0b9c8',
          causationId: null,
          actor: 'payer',
          occurredAt,
        };
        const ms = Date.parse(occurredAt);
        const roundTrips = !Number.isNaN(ms) && new Date(ms).toISOString() === occurredAt && occurredAt >= '1000';
        expect('occurred_at' in appendedMetadata(m)).toBe(roundTrips);
      }),
      { numRuns: 5000 },
    );
  });

  /** Metadata as the service makes it, in the order it makes it. */
  const asMade: EventMetadata = {
    eventId: '018f2f0e-3c4b-7d2e-9a1b-2c3d4e5f6a7b',
    correlationId: '9b2f1c3e-8a7d-4e6f-b5c4-d3e2f1a0b9c8',
    causationId: null,
    actor: 'user:5f0c6a0e-1d2b-4c3a-9e8f-7a6b5c4d3e2f',
    occurredAt: '2026-11-29T14:00:13.781Z',
  };

  it('is the typed columns for metadata as the service makes it, in the order it makes it', () => {
    const m = asMade;
    // the uuids in the actor and the causation kept short (postgres-stream-ids.ts)
    expect(appendedMetadata(m)).toEqual({
      correlation_id: m.correlationId,
      causation_id: null,
      actor: 'user:~XwxqDh0rTDqej3prXE0-Lw',
      occurred_at: m.occurredAt,
    });
    expect(appendedMetadata({ ...m, causationId: 'payment-1@3' })).toMatchObject({ causation_id: 'payment-1@3' });
    expect(appendedMetadata({ ...m, causationId: `payment-${m.eventId}@3` })).toMatchObject({
      causation_id: 'payment-~AY8vDjxLfS6aGyw9Tl9qew@3',
    });
  });

  it('keeps as JSON the metadata whose actor or causation holds a `~`, the mark of a short uuid', () => {
    expect(appendedMetadata({ ...asMade, actor: 'user:~XwxqDh0rTDqej3prXE0-Lw' })).toHaveProperty('metadata');
    expect(appendedMetadata({ ...asMade, actor: 'payer', causationId: 'x~1@2' })).toHaveProperty('metadata');
  });

  it.each([
    ['an uppercase correlationId', { correlationId: '9B2F1C3E-8A7D-4E6F-B5C4-D3E2F1A0B9C8' }],
    ['an occurredAt without milliseconds', { occurredAt: '2026-11-29T14:00:13Z' }],
    ['an occurredAt in another zone', { occurredAt: '2026-11-29T21:00:13.781+07:00' }],
    ['an occurredAt before the year 1000', { occurredAt: '0999-12-31T23:59:59.999Z' }],
    ['an actor with a NUL', { actor: 'user:\u0000' }],
    ['a causationId with a lone surrogate', { causationId: 'payment\ud800@1' }],
    ['an extra key', { tenant: 't-1' }],
  ])('keeps metadata with %s as JSON', (_, odd) => {
    const m = {
      eventId: '018f2f0e-3c4b-7d2e-9a1b-2c3d4e5f6a7b',
      correlationId: '9b2f1c3e-8a7d-4e6f-b5c4-d3e2f1a0b9c8',
      causationId: null,
      actor: 'system:payment-expiry',
      occurredAt: '2026-11-29T14:00:13.781Z',
      ...odd,
    } as EventMetadata;
    expect(appendedMetadata(m)).toHaveProperty('metadata');
  });

  it('keeps metadata with occurredAt before actor, or without causationId, as JSON', () => {
    const {
      occurredAt,
      actor,
      causationId: _,
      ...rest
    } = {
      eventId: '018f2f0e-3c4b-7d2e-9a1b-2c3d4e5f6a7b',
      correlationId: '9b2f1c3e-8a7d-4e6f-b5c4-d3e2f1a0b9c8',
      causationId: null,
      actor: 'system:payment-expiry',
      occurredAt: '2026-11-29T14:00:13.781Z',
    };
    expect(appendedMetadata({ ...rest, causationId: null, occurredAt, actor })).toHaveProperty('metadata');
    expect(appendedMetadata({ ...rest, actor, occurredAt } as EventMetadata)).toHaveProperty('metadata');
  });
});
