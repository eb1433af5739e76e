import { describe, it } from 'vitest';
import { apiKey } from '../../src/domain/api-key.ts';
import { ApiKeyCreated, ApiKeyRevoked, ApiKeyUsed } from '../../src/events/api-key.ts';
import { specification } from '../support/decider.ts';

const given = specification(apiKey);
const keyId = '5b0f1c4e-3a55-4b8e-9b59-6c1f0a6d2e11';
const owner = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const stranger = '1a2b3c4d-1111-4222-8333-944455556666';
const t0 = new Date('2026-01-05T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const created = ApiKeyCreated({
  keyId,
  userId: owner,
  name: 'shop',
  prefix: 'svc_live_abcdef',
  keyHash: 'a'.repeat(64),
  createdAt: t0.toISOString(),
});

const revoked = ApiKeyRevoked({ keyId, revokedAt: at(1).toISOString() });
const used = ApiKeyUsed({ keyId, at: at(0).toISOString() });

describe('api key decider', () => {
  it('revokes a key for its owner', () => {
    given([created])
      .when({ type: 'RevokeApiKey', userId: owner, now: at(1) })
      .then([revoked]);
  });

  it("answers not-found to a stranger revoking someone's key, as for a key that never existed", () => {
    given([created])
      .when({ type: 'RevokeApiKey', userId: stranger, now: at(1) })
      .thenThrows('NOT_FOUND');
  });

  it('answers not-found for a key that never existed', () => {
    given([])
      .when({ type: 'RevokeApiKey', userId: owner, now: at(1) })
      .thenThrows('NOT_FOUND');
  });

  it('revokes a key once: revoking it again changes nothing', () => {
    given([created, revoked])
      .when({ type: 'RevokeApiKey', userId: owner, now: at(2) })
      .then([]);
  });

  it('records the first use', () => {
    given([created])
      .when({ type: 'RecordApiKeyUse', now: at(0) })
      .then([used]);
  });

  it('records no use within five minutes of the last recorded', () => {
    given([created, used])
      .when({ type: 'RecordApiKeyUse', now: at(4) })
      .then([]);
  });

  it('records use five minutes after the last recorded', () => {
    given([created, used])
      .when({ type: 'RecordApiKeyUse', now: at(5) })
      .then([ApiKeyUsed({ keyId, at: at(5).toISOString() })]);
  });

  it('records no use once revoked', () => {
    given([created, revoked])
      .when({ type: 'RecordApiKeyUse', now: at(10) })
      .then([]);
  });
});
