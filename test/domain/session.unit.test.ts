import { describe, it } from 'vitest';
import { session } from '../../src/domain/session.ts';
import { SessionEnded, SessionSeen, SessionStarted } from '../../src/events/session.ts';
import { specification } from '../support/decider.ts';

const given = specification(session);
const sessionId = '7d1f5a52-57c5-4c49-9f59-0cbd3c0a1b11';
const userId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const t0 = new Date('2026-01-05T03:00:00.000Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
const idleMs = 12 * 60 * 60_000;
const started = SessionStarted({
  sessionId,
  userId,
  userAgent: 'UA',
  ip: '1.2.3.4',
  startedAt: t0.toISOString(),
  expiresAt: at(60).toISOString(),
});

const seen5 = SessionSeen({ sessionId, at: at(5).toISOString() });
const loggedOut = SessionEnded({ sessionId, reason: 'logout', endedAt: at(1).toISOString() });
/** A session of a week, to be ended by the idle limit (12 hours) long before it expires. */
const long = SessionStarted({
  sessionId,
  userId,
  userAgent: 'UA',
  ip: null,
  startedAt: t0.toISOString(),
  expiresAt: at(7 * 24 * 60).toISOString(),
});

describe('session decider', () => {
  it('starts a session', () => {
    given([])
      .when({ type: 'StartSession', sessionId, userId, userAgent: 'UA', ip: '1.2.3.4', now: t0, expiresAt: at(60) })
      .then([started]);
  });

  it('refuses to start a session twice', () => {
    given([started])
      .when({ type: 'StartSession', sessionId, userId, userAgent: null, ip: null, now: t0, expiresAt: at(60) })
      .thenThrows('SESSION_EXISTS');
  });

  it('records no use within five minutes of its start', () => {
    given([started])
      .when({ type: 'RecordSessionSeen', now: at(4), idleMs })
      .then([]);
  });

  it('records use five minutes after its start', () => {
    given([started])
      .when({ type: 'RecordSessionSeen', now: at(5), idleMs })
      .then([seen5]);
  });

  it('records no use within five minutes of the last recorded', () => {
    given([started, seen5])
      .when({ type: 'RecordSessionSeen', now: at(9), idleMs })
      .then([]);
  });

  it('records no use after it expired', () => {
    given([started])
      .when({ type: 'RecordSessionSeen', now: at(61), idleMs })
      .then([]);
  });

  it('records no use after it ended', () => {
    given([started, loggedOut])
      .when({ type: 'RecordSessionSeen', now: at(30), idleMs })
      .then([]);
  });

  it('is not brought back by being seen again once unused for the idle limit', () => {
    given([long])
      .when({ type: 'RecordSessionSeen', now: at(12 * 60), idleMs })
      .then([]);
  });

  it('records use a minute before the idle limit', () => {
    given([long])
      .when({ type: 'RecordSessionSeen', now: at(12 * 60 - 1), idleMs })
      .then([SessionSeen({ sessionId, at: at(12 * 60 - 1).toISOString() })]);
  });

  describe('ended as idle', () => {
    const seen = SessionSeen({ sessionId, at: at(60).toISOString() });

    it('not before its last recorded use is the idle limit old', () => {
      given([long, seen])
        .when({ type: 'EndIdleSession', now: at(12 * 60 + 59), idleMs })
        .then([]);
    });

    it('once its last recorded use is the idle limit old', () => {
      given([long, seen])
        .when({ type: 'EndIdleSession', now: at(13 * 60), idleMs })
        .then([SessionEnded({ sessionId, reason: 'idle', endedAt: at(13 * 60).toISOString() })]);
    });

    it('not when it already ended', () => {
      given([long, loggedOut])
        .when({ type: 'EndIdleSession', now: at(13 * 60), idleMs })
        .then([]);
    });
  });

  it('ends a live session', () => {
    given([started])
      .when({ type: 'EndSession', reason: 'logout', now: at(2) })
      .then([SessionEnded({ sessionId, reason: 'logout', endedAt: at(2).toISOString() })]);
  });

  it('ends a session once: ending it again changes nothing', () => {
    given([started, SessionEnded({ sessionId, reason: 'logout', endedAt: at(2).toISOString() })])
      .when({ type: 'EndSession', reason: 'logout', now: at(3) })
      .then([]);
  });

  it('ends nothing where no session started', () => {
    given([])
      .when({ type: 'EndSession', reason: 'logout', now: at(3) })
      .then([]);
  });
});
