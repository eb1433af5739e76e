import { randomUUID } from 'node:crypto';
import { auditor, auditorStream } from '../domain/auditor.ts';
import { generateAuditorToken } from '../security/auditor-token.ts';
import { handleCommand } from '../store/commands/handle.ts';
import type { StoreDeps } from './deps.ts';

/** A new auditor's token, answered once: only its hash is kept. */
export async function createAuditor(deps: StoreDeps, name: string, actor: string) {
  const auditorId = randomUUID();
  const { token, prefix, hash } = generateAuditorToken();
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    auditorStream(auditorId),
    auditor,
    { type: 'CreateAuditor', auditorId, name, prefix, keyHash: hash, now },
    { actor, now },
  );
  await deps.readModels.waitFor(result.position);
  return { id: auditorId, name, prefix, token, createdAt: now.toISOString() };
}

export async function revokeAuditor(deps: StoreDeps, auditorId: string, actor: string): Promise<void> {
  const now = deps.clock.now();
  const result = await handleCommand(
    deps,
    auditorStream(auditorId),
    auditor,
    { type: 'RevokeAuditor', now },
    { actor, now },
  );
  await deps.readModels.waitFor(result.position);
}
