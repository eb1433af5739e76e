import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../security/api-key-format.ts';
import type { CommandDeps } from './deps.ts';
import { handleCommand } from '../store/commands/handle.ts';
import { apiKeyStream, apiKey } from '../domain/api-key.ts';

export async function createApiKey(deps: CommandDeps, userId: string, name: string) {
  const keyId = randomUUID();
  const { key, prefix, hash } = generateApiKey();
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    apiKeyStream(keyId),
    apiKey,
    { type: 'CreateApiKey', keyId, userId, name, prefix, keyHash: hash, now },
    { actor: `user:${userId}`, now },
  );
  await deps.readModels.waitFor(result.position);
  return { id: keyId, name, prefix, key, createdAt: now.toISOString() };
}

export async function revokeApiKey(deps: CommandDeps, userId: string, keyId: string) {
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    apiKeyStream(keyId),
    apiKey,
    { type: 'RevokeApiKey', userId, now },
    {
      actor: `user:${userId}`,
      now,
    },
  );
  await deps.readModels.waitFor(result.position);
}

export async function recordApiKeyUse(deps: CommandDeps, keyId: string): Promise<void> {
  const now = deps.clock.now();
  await handleCommand(
    deps,
    apiKeyStream(keyId),
    apiKey,
    { type: 'RecordApiKeyUse', now },
    { actor: `api-key:${keyId}`, now },
  );
}
