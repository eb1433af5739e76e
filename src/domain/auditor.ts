import { refuse } from '../errors.ts';
import { AuditorCreated, AuditorRevoked, type AuditorEvent } from '../events/auditor.ts';
import type { Decider } from './decider.ts';

export const auditorStream = (auditorId: string) => `auditor-${auditorId}`;

export type Auditor = { status: 'none' } | { status: 'active' | 'revoked'; auditorId: string };

export type AuditorCommand =
  | { type: 'CreateAuditor'; auditorId: string; name: string; prefix: string; keyHash: string; now: Date }
  | { type: 'RevokeAuditor'; now: Date };

export const auditor: Decider<Auditor, AuditorCommand, AuditorEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'AuditorCreated':
        return { status: 'active', auditorId: event.data.auditorId };
      case 'AuditorRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(state, command) {
    switch (command.type) {
      case 'CreateAuditor':
        if (state.status !== 'none') throw refuse('CONFLICT', { message: 'Auditor already exists' });
        return [
          AuditorCreated({
            auditorId: command.auditorId,
            name: command.name,
            prefix: command.prefix,
            keyHash: command.keyHash,
            createdAt: command.now.toISOString(),
          }),
        ];
      case 'RevokeAuditor':
        if (state.status === 'none') throw refuse('NOT_FOUND', { message: 'Auditor not found' });
        if (state.status === 'revoked') return [];
        return [AuditorRevoked({ auditorId: state.auditorId, revokedAt: command.now.toISOString() })];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
