import { describe, expect, it } from 'vitest';
import { user, userEmail } from '../../src/domain/user.ts';
import { UserEmailClaimed } from '../../src/events/user-email.ts';
import { PasswordChanged, PointsGranted, SubscriptionGranted, UserRegistered } from '../../src/events/user.ts';
import { specification } from '../support/decider.ts';

const userId = '0f6f2a6e-9c4c-4a7a-9d0e-7d36c4a6f0a2';
const other = '1a2b3c4d-1111-4222-8333-944455556666';
const now = new Date('2026-01-05T03:00:00.000Z');
const register = {
  type: 'RegisterUser' as const,
  userId,
  name: 'Budi',
  email: 'budi@example.com',
  passwordHash: 'h',
  role: 'USER' as const,
  now,
};

describe('user decider', () => {
  it('registers with the Free plan for a year and 1,000 points', () => {
    specification(user)([])
      .when(register)
      .then([
        UserRegistered({
          userId,
          name: 'Budi',
          email: 'budi@example.com',
          passwordHash: 'h',
          role: 'USER',
          registeredAt: now.toISOString(),
        }),
        SubscriptionGranted({
          userId,
          plan: { name: 'Free', slug: 'free' },
          status: 'ACTIVE',
          expiresAt: '2027-01-05T03:00:00.000Z',
        }),
        PointsGranted({ userId, points: 1000, reason: 'free-plan' }),
      ]);
  });

  it('refuses to register the same user twice', () => {
    specification(user)([
      UserRegistered({
        userId,
        name: 'Budi',
        email: 'budi@example.com',
        passwordHash: 'h',
        role: 'USER',
        registeredAt: now.toISOString(),
      }),
    ])
      .when(register)
      .thenThrows('EMAIL_TAKEN', 'Email sudah terdaftar');
  });
});

describe('password change', () => {
  const registered = UserRegistered({
    userId,
    name: 'Budi',
    email: 'budi@example.com',
    passwordHash: 'old-hash',
    role: 'USER',
    registeredAt: now.toISOString(),
  });
  const change = (reason: 'changed' | 'reset') =>
    ({ type: 'ChangePassword', passwordHash: 'new-hash', reason, now }) as const;

  it.each(['changed', 'reset'] as const)('records the new hash when the password is %s', reason =>
    specification(user)([registered])
      .when(change(reason))
      .then([PasswordChanged({ userId, passwordHash: 'new-hash', reason, changedAt: now.toISOString() })]),
  );

  it('refuses a user that was never registered', () =>
    specification(user)([]).when(change('reset')).thenThrows('NOT_FOUND'));

  it('checks passwords against the newest hash from then on', () => {
    const state = [
      registered,
      PasswordChanged({ userId, passwordHash: 'new-hash', reason: 'changed', changedAt: now.toISOString() }),
    ].reduce(user.evolve, user.initialState());
    expect(state).toMatchObject({ registered: true, passwordHash: 'new-hash' });
  });
});

describe('email claim decider', () => {
  const given = specification(userEmail);
  it('claims a free address', () => {
    given([])
      .when({ type: 'ClaimEmail', userId })
      .then([UserEmailClaimed({ userId })]);
  });

  it('changes nothing when the same user claims it again', () => {
    given([UserEmailClaimed({ userId })])
      .when({ type: 'ClaimEmail', userId })
      .then([]);
  });

  it('refuses another user an address taken', () => {
    given([UserEmailClaimed({ userId })])
      .when({ type: 'ClaimEmail', userId: other })
      .thenThrows('EMAIL_TAKEN');
  });
});
