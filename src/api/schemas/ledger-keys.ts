import { z } from 'zod';
import type { ChainKey } from '../../audit/ledger-keys.ts';
import type { DocumentedOperation } from './index-requests.ts';
import { success, type NamesAll } from './payments.ts';

/** GET /.well-known/ledger-keys as src/api/ledger-keys.ts answers it: every key the chain has used, in order. */

const keyExample = {
  keyId: '3b1f9c2d7e4a5b60',
  publicKey: 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=',
  firstSeq: 0,
  introducedBy: null,
};
const rotatedExample = {
  keyId: 'a9e0c4b2f17d3e85',
  publicKey: 'MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=',
  firstSeq: 4813,
  introducedBy: { seq: 4812, hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
};

export const ledgerKey = z
  .object({
    keyId: z.string().describe('The first 16 hex digits of SHA-256 of the public key (SPKI DER): checkpoints name it'),
    publicKey: z.string().describe('The Ed25519 public key, base64 SPKI DER'),
    firstSeq: z.int().describe('The first checkpoint it signs: 0, or the one after the rotation that introduced it'),
    introducedBy: z
      .object({
        seq: z.int(),
        hash: z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .describe("The rotation checkpoint's hash (SHA-256 of its signed text)"),
      })
      .nullable()
      .describe(
        'The rotation checkpoint that introduced it, signed by the key before it and by it; null for the first',
      ),
  })
  .meta({ id: 'LedgerKey', description: 'A key the ledger has signed checkpoints with', examples: [keyExample] });

const ledgerKeys = z
  .object({
    algorithm: z.literal('Ed25519'),
    keys: z.array(ledgerKey).describe('Every key in the order the chain took them up: pin the first, follow the rest'),
  })
  .meta({
    id: 'LedgerKeys',
    description: "The ledger's public keys, for anyone checking its signed checkpoints (docs/auditing.md)",
    examples: [{ algorithm: 'Ed25519', keys: [keyExample, rotatedExample] }],
  });

const _key: NamesAll<ChainKey, z.output<typeof ledgerKey>> = true;

export const ledgerKeyOperations: Record<string, DocumentedOperation> = {
  'GET /.well-known/ledger-keys': { responses: { 200: success('LedgerKeysResponse', ledgerKeys) } },
};
