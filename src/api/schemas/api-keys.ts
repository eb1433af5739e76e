import { z } from 'zod';
import type { DocumentedOperation } from './index-requests.ts';
import { success, successList } from './payments.ts';

const instant = z.iso.datetime({ offset: true });
const id = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

/** An API key as the list shows it (src/api/api-keys.ts): never its secret. */
export const apiKey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to tell keys apart'),
    createdAt: instant,
    lastUsedAt: instant.nullable(),
    revokedAt: instant.nullable(),
  })
  .meta({
    id: 'ApiKey',
    description: 'An API key of the dashboard user',
    examples: [
      {
        id,
        name: 'shop backend',
        prefix: 'svc_live_3fA9xQ',
        createdAt: '2025-06-01T08:00:00.000Z',
        lastUsedAt: '2025-06-02T10:00:00.000Z',
        revokedAt: null,
      },
    ],
  });

/** A key as created: the secret, shown this once. */
export const newApiKey = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string(),
    key: z.string().describe('The key for the x-api-key header; shown once, store it now'),
    createdAt: instant,
  })
  .meta({
    id: 'NewApiKey',
    description: 'A created API key, with its secret (shown once)',
    examples: [
      {
        id,
        name: 'shop backend',
        prefix: 'svc_live_3fA9xQ',
        key: 'svc_live_3fA9xQ7rT2mVb8LcN4pWz6YsK1dJh5Ge0a1b2c3d',
        createdAt: '2025-06-01T08:00:00.000Z',
      },
    ],
  });

export const revokedApiKey = z
  .object({ id: z.uuid(), revoked: z.literal(true) })
  .meta({ id: 'RevokedApiKey', description: 'A revoked API key', examples: [{ id, revoked: true }] });

export const apiKeyOperations: Record<string, DocumentedOperation> = {
  'POST /api/dashboard/api-keys': { responses: { 201: success('NewApiKeyResponse', newApiKey) } },
  'GET /api/dashboard/api-keys': { responses: { 200: successList('ApiKeyListResponse', apiKey) } },
  'DELETE /api/dashboard/api-keys/{id}': { responses: { 200: success('RevokedApiKeyResponse', revokedApiKey) } },
};
