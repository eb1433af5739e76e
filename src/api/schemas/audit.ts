import { z } from 'zod';
import type { StoredDigest } from '../../audit/digests.ts';
import type { AuditView } from '../../audit/event-view.ts';
import { ledgerCheckpoint, type LedgerCheckpoint } from '../../audit/ledger-format.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, type NamesAll } from './payments.ts';

/** The auditors' routes of the admin console as src/api/admin-audit.ts answers them: a stream's events, the daily digests, the latest checkpoint. */

const instant = z.iso.datetime({ offset: true });
const date = z.string().meta({ format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' });
const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

const metadata = z
  .object({
    eventId: z.uuid(),
    correlationId: z.string().describe('The request or process the event came from'),
    causationId: z.string().nullable().describe('The event or command that caused it'),
    actor: z.string().describe('Who: user:<id>, admin:<id>, system:<name>'),
    occurredAt: instant,
  })
  .describe('Who, when, and caused by what');

const eventExample = {
  streamId: 'payment-3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71',
  revision: 0,
  position: '1042/1042',
  type: 'PaymentCreated',
  version: 1,
  data: { paymentId: '3f2b8c1e-5d4a-4b7e-9c1f-2a6d8e0b4c71', orderId: 'INV-1001', amount: 150000 },
  metadata: {
    eventId: '0f1e2d3c-4b5a-4697-8877-665544332211',
    correlationId: 'req-8f2c',
    causationId: null,
    actor: 'user:9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    occurredAt: '2025-06-02T10:00:00.000Z',
  },
};

/** An event as an auditor reads it (src/audit/event-view.ts auditView). */
export const auditEvent = z
  .object({
    streamId: z.string(),
    revision: z.int().describe('Its place in its stream, from 0'),
    position: z.string().describe('Its place in the whole log (commit/prepare)'),
    type: z.string(),
    version: z.int().describe('The version of its schema as stored'),
    data: z
      .record(z.string(), z.unknown())
      .describe('Its payload as this code reads it (upcast), secrets and sealed values replaced'),
    metadata,
    unreadable: z
      .string()
      .optional()
      .describe('Why this code cannot read it (then data is as stored); absent when it can'),
  })
  .meta({ id: 'AuditEvent', description: 'An event of the log as an auditor reads it', examples: [eventExample] });

const streamPage = z
  .object({
    status: z.literal('success'),
    data: z.object({
      streamId: z.string(),
      events: z.array(auditEvent),
      nextRevision: z
        .int()
        .nullable()
        .describe('Where the next page starts (fromRevision); null: the end of the stream'),
    }),
  })
  .meta({
    id: 'StreamPageResponse',
    description: "A page of a stream's events",
    examples: [
      { status: 'success', data: { streamId: eventExample.streamId, events: [eventExample], nextRevision: null } },
    ],
  });

const digestExample = {
  day: '2025-06-02',
  events: 1250,
  root: 'b5d4045c3f466fa91fe2cc6abe79232a1a57cdf104f7a26e716e0a1e2789df78',
  signature: 'MEUCIQDt3mJ5w0r1m1m4Yp2Vq8x5Zq3n6Q0hA==',
  keyId: '3b1f9c2d7e4a5b60',
};
/** A day's digest of the log (src/audit/digests.ts StoredDigest). */
export const dailyDigest = z
  .object({
    day: date.describe("The day, in the log's time zone"),
    events: z.int().describe('Events of the log on that day'),
    root: z.string().describe("The Merkle root of the day's events"),
    signature: z.string().nullable().describe('Ed25519 over `signed`, base64; null while the day is open'),
    keyId: z.string().nullable().describe('The key that signed it; null while the day is open'),
  })
  .meta({
    id: 'DailyDigest',
    description: 'The signed digest of one day of the log',
    examples: [digestExample],
  });

const digestsExample = {
  keyId: '3b1f9c2d7e4a5b60',
  publicKey: 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=',
  algorithm: 'Ed25519',
  signed: 'daily-digest:v1:<day>:<events>:<root>',
  days: [digestExample],
};
const digests = z
  .object({
    status: z.literal('success'),
    data: z.object({
      keyId: z.string(),
      publicKey: z
        .string()
        .describe("The signing key's public half, SPKI DER in base64: keep it to check the log later"),
      algorithm: z.literal('Ed25519'),
      signed: z.string().describe('The text each signature covers'),
      days: z.array(dailyDigest).describe('Oldest day first'),
    }),
  })
  .meta({
    id: 'DailyDigestsResponse',
    description: 'The daily digests and the key that signs them',
    examples: [{ status: 'success', data: digestsExample }],
  });

/** The format's own schema (src/audit/ledger-format.ts): the checkpoint as signed, nothing added. */
export const checkpoint = ledgerCheckpoint
  .extend({
    root: hex64.describe('The Merkle root of the events [from, to)'),
    prev: hex64.describe('The hash of the checkpoint before'),
  })
  .meta({
    id: 'LedgerCheckpoint',
    description:
      'A signed checkpoint of the log: the events [from, to) in log order by their Merkle root, chained to the one before',
    examples: [
      {
        v: 1,
        seq: 12,
        from: 11000,
        to: 12250,
        events: 1250,
        root: 'b5d4045c3f466fa91fe2cc6abe79232a1a57cdf104f7a26e716e0a1e2789df78',
        prev: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
        at: '2025-06-02T10:01:00.000Z',
        lastPosition: '12250/12250',
        keyId: '3b1f9c2d7e4a5b60',
        signature: 'MEUCIQDt3mJ5w0r1m1m4Yp2Vq8x5Zq3n6Q0hA==',
      },
    ],
  });

// a field the service answers and the component does not name fails the type check
const _event: NamesAll<AuditView, z.output<typeof auditEvent>> = true;
const _digest: NamesAll<StoredDigest, z.output<typeof dailyDigest>> = true;
const _checkpoint: NamesAll<LedgerCheckpoint, z.output<typeof checkpoint>> = true;

export const auditOperations: Record<string, DocumentedOperation> = {
  'GET /api/admin/streams/{id}': { responses: { 200: streamPage } },
  'GET /api/admin/digests': { responses: { 200: digests } },
};
