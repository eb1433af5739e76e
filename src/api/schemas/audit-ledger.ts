import { z } from 'zod';
import type { StoredCosignature } from '../../audit/cosignatures.ts';
import type { logLine } from '../../audit/export.ts';
import { checkpoint } from './audit.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, type NamesAll } from './payments.ts';

/** What src/api/audit-ledger.ts answers a witness (/api/audit) and the admin's newest checkpoint with its cosignatures. */

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

const cosignatureExample = {
  checkpointHash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  seq: 12,
  witnessKeyId: '5c0a7e2d9b3f1a48',
  signature: 'q2Cz0nE4s1m3Vb7xS9lJ4Yp2Vq8x5Zq3n6Q0hA5mZk1W3n8pQ7rT2uV6xY9zA1bC4dE7fG0hJ3kL6mN9pQ2rS5tUw==',
  receivedAt: '2025-06-02T10:02:00.000Z',
};
/** A witness's cosignature as the service keeps it: published as posted, to be checked with the witness's own key. */
export const cosignature = z
  .object({
    checkpointHash: hex64.describe("The cosigned checkpoint's hash (SHA-256 of its signed text)"),
    seq: z.int(),
    witnessKeyId: z.string().describe("The first 16 hex digits of SHA-256 of the witness's public key (SPKI DER)"),
    signature: z.string().describe('Ed25519 over `ledger-cosignature:v1:<checkpointHash>`, base64'),
    receivedAt: z.iso.datetime({ offset: true }),
  })
  .meta({
    id: 'LedgerCosignature',
    description: "A witness's cosignature of a checkpoint",
    examples: [cosignatureExample],
  });

const checkpointExample = (z.globalRegistry.get(checkpoint)?.examples as object[])[0]!;
export const cosignedCheckpoint = checkpoint
  .extend({
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe("Its hash, sha256 of its signed text: its identity, and the next checkpoint's prev (not signed)"),
    cosignatures: z.array(cosignature).describe("The witnesses' cosignatures of it, as posted"),
  })
  .meta({
    id: 'CosignedLedgerCheckpoint',
    description: 'A signed checkpoint and the cosignatures posted of it (the checkpoint is the rest)',
    examples: [
      {
        ...checkpointExample,
        hash: '5f2c7a1e9b3d4c8f6a0e2b7d1c9f3a5e8b4d6c0a2e7f1b3d5c9a8e6f4b2d0c1e',
        cosignatures: [cosignatureExample],
      },
    ],
  });

const lineExample = {
  index: 3400,
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
const logLineSchema = z
  .object({
    index: z.int().describe('Its index in the log, from 0'),
    streamId: z.string(),
    revision: z.int(),
    position: z.string().describe('Its place in the store (commit/prepare): where the next page starts after it'),
    type: z.string(),
    version: z.int(),
    data: z.record(z.string(), z.unknown()).describe('As stored, secrets as commitments (the leaf’s own value)'),
    metadata: z.record(z.string(), z.unknown()),
  })
  .meta({
    id: 'LedgerLogLine',
    description: 'An event of the log as an export line, without its view',
    examples: [lineExample],
  });

const eventsPage = z
  .object({
    status: z.literal('success'),
    data: z.object({
      events: z.array(logLineSchema),
      next: z
        .object({ after: z.string(), index: z.int() })
        .nullable()
        .describe('Where the next page starts (after, index); null: the end of the log as it is final now'),
    }),
  })
  .meta({
    id: 'LedgerEventsPage',
    description: "A page of the log's events in log order",
    examples: [{ status: 'success', data: { events: [lineExample], next: null } }],
  });

const checkpointsPage = z
  .object({ status: z.literal('success'), data: z.object({ checkpoints: z.array(checkpoint) }) })
  .meta({
    id: 'LedgerCheckpointsPage',
    description: 'Checkpoints from a seq on, in seq order',
    examples: [{ status: 'success', data: { checkpoints: [checkpointExample] } }],
  });

const cosignatures = z
  .object({ status: z.literal('success'), data: z.object({ cosignatures: z.array(cosignature) }) })
  .meta({
    id: 'LedgerCosignaturesResponse',
    description: 'Every cosignature posted from a seq on (docs/verify-export.mjs --cosignatures takes this answer)',
    examples: [{ status: 'success', data: { cosignatures: [cosignatureExample] } }],
  });

const _line: NamesAll<ReturnType<typeof logLine>, z.output<typeof logLineSchema>> = true;
const _cosignature: NamesAll<StoredCosignature, z.output<typeof cosignature>> = true;

const latest = success('CosignedLedgerCheckpointResponse', cosignedCheckpoint);
const posted = success('LedgerCosignatureResponse', cosignature);
export const auditLedgerOperations: Record<string, DocumentedOperation> = {
  'GET /api/admin/ledger/checkpoints/latest': { responses: { 200: latest } },
  'GET /api/audit/ledger/checkpoints/latest': { responses: { 200: latest } },
  'GET /api/audit/ledger/checkpoints': { responses: { 200: checkpointsPage } },
  'GET /api/audit/ledger/events': { responses: { 200: eventsPage } },
  'GET /api/audit/ledger/cosignatures': { responses: { 200: cosignatures } },
  'POST /api/audit/ledger/cosignatures': {
    responses: { 200: posted, 201: posted },
  },
};
