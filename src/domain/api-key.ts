import { refuse } from '../errors.ts';
import { ApiKeyCreated, ApiKeyRevoked, ApiKeyUsed, type ApiKeyEvent } from '../events/api-key.ts';
import type { Decider } from './decider.ts';

export const apiKeyStream = (keyId: string) => `api-key-${keyId}`;

/** How stale lastUsedAt may get before a request records a key's use again. */
export const apiKeyUseRecordedEveryMs = 5 * 60_000;

export type ApiKey =
  { status: 'none' } | { status: 'active' | 'revoked'; keyId: string; userId: string; lastUsedAt: Date | null };

export type ApiKeyCommand =
  | { type: 'CreateApiKey'; keyId: string; userId: string; name: string; prefix: string; keyHash: string; now: Date }
  | { type: 'RecordApiKeyUse'; now: Date }
  | { type: 'RevokeApiKey'; userId: string; now: Date };

const keyNotFound = () => refuse('NOT_FOUND', { message: 'API key not found' });

export const apiKey: Decider<ApiKey, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { status: 'active', keyId: event.data.keyId, userId: event.data.userId, lastUsedAt: null };
      case 'ApiKeyUsed':
        return state.status === 'none' ? state : { ...state, lastUsedAt: new Date(event.data.at) };
      case 'ApiKeyRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(state, command) {
    switch (command.type) {
      case 'CreateApiKey':
        if (state.status !== 'none') throw refuse('CONFLICT', { message: 'API key already exists' });
        return [
          ApiKeyCreated({
            keyId: command.keyId,
            userId: command.userId,
            name: command.name,
            prefix: command.prefix,
            keyHash: command.keyHash,
            createdAt: command.now.toISOString(),
          }),
        ];
      case 'RecordApiKeyUse': {
        if (state.status !== 'active') return [];
        const last = state.lastUsedAt?.getTime() ?? -Infinity;
        if (command.now.getTime() - last < apiKeyUseRecordedEveryMs) return [];
        return [ApiKeyUsed({ keyId: state.keyId, at: command.now.toISOString() })];
      }
      case 'RevokeApiKey':
        // another owner's key is as unknown as a key that never existed
        if (state.status === 'none' || state.userId !== command.userId) throw keyNotFound();
        if (state.status === 'revoked') return [];
        return [ApiKeyRevoked({ keyId: state.keyId, revokedAt: command.now.toISOString() })];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
