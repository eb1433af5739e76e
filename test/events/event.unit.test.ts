import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UnknownEventVersion, event, parseRecorded, serialise } from '../../src/events/event.ts';
import type { RecordedEvent } from '../../src/store/event-store.ts';

// v1 had a single "fullName"; v2 splits it, v3 adds a currency that v2 always meant.
const CustomerRenamed = event(
  'TestCustomerRenamed',
  3,
  z.object({ first: z.string(), last: z.string(), currency: z.literal('IDR') }),
  {
    1: d => {
      const [first = '', ...rest] = String(d.fullName).split(' ');
      return { first, last: rest.join(' ') };
    },
    2: d => ({ ...d, currency: 'IDR' }),
  },
);

const recorded = (version: number, data: Record<string, unknown>): RecordedEvent => ({
  type: 'TestCustomerRenamed',
  version,
  data,
  streamId: 'customer-1',
  revision: 0,
  position: { commit: 1n, prepare: 1n },
  metadata: {
    eventId: 'e',
    correlationId: 'c',
    causationId: null,
    actor: 'test',
    occurredAt: '2026-01-05T03:00:00.000Z',
  },
});

describe('event declarations', () => {
  it('upcasts every older version to the current one on read', () => {
    expect(parseRecorded(recorded(1, { fullName: 'Siti Nur Aminah' }))!.data).toEqual({
      first: 'Siti',
      last: 'Nur Aminah',
      currency: 'IDR',
    });
    expect(parseRecorded(recorded(2, { first: 'Siti', last: 'Aminah' }))!.data).toEqual({
      first: 'Siti',
      last: 'Aminah',
      currency: 'IDR',
    });
    expect(parseRecorded(recorded(3, { first: 'A', last: 'B', currency: 'IDR' }))!.data).toEqual({
      first: 'A',
      last: 'B',
      currency: 'IDR',
    });
  });

  it('refuses a version newer than the code knows, instead of misreading it', () => {
    expect(() => parseRecorded(recorded(4, {}))).toThrow(UnknownEventVersion);
  });

  it('passes over event types nobody here declares', () => {
    expect(parseRecorded({ ...recorded(1, {}), type: 'SomebodyElsesEvent' })).toBeNull();
  });

  it('stamps the current version and refuses a payload its schema rejects before it is stored', () => {
    expect(serialise(CustomerRenamed({ first: 'A', last: 'B', currency: 'IDR' }))).toEqual({
      type: 'TestCustomerRenamed',
      version: 3,
      data: { first: 'A', last: 'B', currency: 'IDR' },
    });
    expect(() => serialise({ type: 'TestCustomerRenamed', data: { first: 1 } })).toThrow();
  });

  it('demands an upcaster for every older version and one declaration per type', () => {
    expect(() => event('TestNoUpcaster', 2, z.object({}))).toThrow(/lacks an upcaster/);
    expect(() => event('TestCustomerRenamed', 1, z.object({}))).toThrow(/declared twice/);
  });
});
