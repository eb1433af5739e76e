import { describe, it } from 'vitest';
import { session } from '../../src/commands/session.ts';
import { SessionEnded, SessionSeen, SessionStarted } from '../../src/events/session.ts';
import { specification } from '../support/decider.ts';

const given = specification(session);
const sessionId = '7d1f5a52-57c5-4c49-9f59-0cbd3c0a1b11';
const userId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const t0 = new Date('2026-01-05T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const started = SessionStarted({ sessionId, userId, userAgent: 'UA', ip: '1.2.3.4', startedAt: t0.toISOString(), expiresAt: at(60).toISOString() });

describe('session decider', () => {
  it('starts a session once', () => {
    given([]).when({ type: 'StartSession', sessionId, userId, userAgent: 'UA', ip: '1.2.3.4', now: t0, expiresAt: at(60) }).then([started]);
    given([started]).when({ type: 'StartSession', sessionId, userId, userAgent: null, ip: null, now: t0, expiresAt: at(60) }).thenThrows('SESSION_EXISTS');
  });

  it('records use at most once per five minutes, and never after expiry or end', () => {
    given([started]).when({ type: 'RecordSessionSeen', now: at(4) }).then([]);
    given([started]).when({ type: 'RecordSessionSeen', now: at(5) }).then([SessionSeen({ sessionId, at: at(5).toISOString() })]);
    given([started, SessionSeen({ sessionId, at: at(5).toISOString() })]).when({ type: 'RecordSessionSeen', now: at(9) }).then([]);
    given([started]).when({ type: 'RecordSessionSeen', now: at(61) }).then([]);
    given([started, SessionEnded({ sessionId, reason: 'logout', endedAt: at(1).toISOString() })])
      .when({ type: 'RecordSessionSeen', now: at(30) })
      .then([]);
  });

  it('ends a live session once; ending it again changes nothing', () => {
    const ended = SessionEnded({ sessionId, reason: 'logout', endedAt: at(2).toISOString() });
    given([started]).when({ type: 'EndSession', reason: 'logout', now: at(2) }).then([ended]);
    given([started, ended]).when({ type: 'EndSession', reason: 'logout', now: at(3) }).then([]);
    given([]).when({ type: 'EndSession', reason: 'logout', now: at(3) }).then([]);
  });
});
