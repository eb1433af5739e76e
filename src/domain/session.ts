import { refuse } from '../errors.ts';
import { SessionEnded, SessionSeen, SessionStarted, type SessionEvent } from '../events/session.ts';
import type { Decider } from './decider.ts';

export const sessionStream = (sessionId: string) => `session-${sessionId}`;

/** How stale lastSeenAt may get before a request records that the session is still in use. */
export const sessionSeenEveryMs = 5 * 60_000;

export type SessionEndReason = 'logout' | 'revoked' | 'idle';

export type Session =
  | { status: 'none' }
  | { status: 'active'; sessionId: string; userId: string; expiresAt: Date; lastSeenAt: Date }
  | { status: 'ended'; sessionId: string; userId: string };

export type SessionCommand =
  | {
      type: 'StartSession';
      sessionId: string;
      userId: string;
      userAgent: string | null;
      ip: string | null;
      now: Date;
      expiresAt: Date;
    }
  /** idleMs: a session unused this long is over, and being seen again does not bring it back */
  | { type: 'RecordSessionSeen'; now: Date; idleMs: number }
  | { type: 'EndSession'; reason: SessionEndReason; now: Date }
  /** ends the session if it has gone unused for idleMs (its own history says so, not a read model that may lag) */
  | { type: 'EndIdleSession'; now: Date; idleMs: number };

export const session: Decider<Session, SessionCommand, SessionEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'SessionStarted':
        return {
          status: 'active',
          sessionId: event.data.sessionId,
          userId: event.data.userId,
          expiresAt: new Date(event.data.expiresAt),
          lastSeenAt: new Date(event.data.startedAt),
        };
      case 'SessionSeen':
        return state.status === 'active' ? { ...state, lastSeenAt: new Date(event.data.at) } : state;
      case 'SessionEnded':
        return state.status === 'none' ? state : { status: 'ended', sessionId: state.sessionId, userId: state.userId };
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(state, command) {
    switch (command.type) {
      case 'StartSession':
        if (state.status !== 'none') throw refuse('SESSION_EXISTS', { message: 'session already started' });
        return [
          SessionStarted({
            sessionId: command.sessionId,
            userId: command.userId,
            userAgent: command.userAgent,
            ip: command.ip,
            startedAt: command.now.toISOString(),
            expiresAt: command.expiresAt.toISOString(),
          }),
        ];
      case 'RecordSessionSeen':
        if (state.status !== 'active' || command.now >= state.expiresAt) return [];
        if (command.now.getTime() - state.lastSeenAt.getTime() >= command.idleMs) return [];
        if (command.now.getTime() - state.lastSeenAt.getTime() < sessionSeenEveryMs) return [];
        return [SessionSeen({ sessionId: state.sessionId, at: command.now.toISOString() })];
      case 'EndSession':
        if (state.status !== 'active') return [];
        return [
          SessionEnded({ sessionId: state.sessionId, reason: command.reason, endedAt: command.now.toISOString() }),
        ];
      case 'EndIdleSession':
        if (state.status !== 'active' || command.now.getTime() - state.lastSeenAt.getTime() < command.idleMs) return [];
        return [SessionEnded({ sessionId: state.sessionId, reason: 'idle', endedAt: command.now.toISOString() })];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
