import { refuse } from '../errors.ts';
import {
  AccountDeleted,
  PasswordChanged,
  PointsDebited,
  PointsGranted,
  SubscriptionGranted,
  UserRegistered,
  type UserEvent,
} from '../events/user.ts';
import { UserEmailClaimed, type UserEmailEvent } from '../events/user-email.ts';
import { freePlan } from '../plans.ts';
import type { Decider } from './decider.ts';

export const userStream = (userId: string) => `user-${userId}`;

export type User =
  | { registered: false }
  | { registered: true; userId: string; email: string; passwordHash: string; role: 'USER' | 'ADMIN'; points: number };

export type RegisterUser = {
  type: 'RegisterUser';
  userId: string;
  name: string;
  email: string;
  passwordHash: string;
  role: 'USER' | 'ADMIN';
  now: Date;
};

/** `reason`: the user changed it knowing the old one, or an admin reset it */
export type ChangePassword = { type: 'ChangePassword'; passwordHash: string; reason: 'changed' | 'reset'; now: Date };

export type UserCommand =
  | RegisterUser
  | ChangePassword
  | { type: 'DebitPoints'; points: number; accountId: string; reason: 'account-sync' | 'account-creation' }
  | { type: 'RecordAccountDeleted'; accountId: string; now: Date };

export const notEnoughPoints = (needed: number, available: number) =>
  refuse('NOT_ENOUGH_POINTS', { message: `Not enough points: ${needed} needed, ${available} available` });

export const emailTaken = () => refuse('EMAIL_TAKEN');

export const user: Decider<User, UserCommand, UserEvent> = {
  // every scheduled sync debits a point here: without snapshots this stream would be read whole each time
  snapshot: { name: 'user', version: 1, every: 100 },
  // the syncs of all their accounts and their links take points here: one at a time from this process
  serialised: true,
  initialState: () => ({ registered: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return {
          registered: true,
          userId: event.data.userId,
          email: event.data.email,
          passwordHash: event.data.passwordHash,
          role: event.data.role,
          points: 0,
        };
      case 'PasswordChanged':
        return state.registered ? { ...state, passwordHash: event.data.passwordHash } : state;
      case 'SubscriptionGranted':
        return state;
      case 'PointsGranted':
        return state.registered ? { ...state, points: state.points + event.data.points } : state;
      case 'PointsDebited':
        return state.registered ? { ...state, points: state.points - event.data.points } : state;
      case 'AccountDeleted':
        return state;
      case 'WebhookEndpointAdded':
      case 'WebhookEndpointRemoved':
      case 'WebhookEndpointDisabled':
        return state; // endpoints are decided by src/webhooks/endpoints.ts, a view of this stream of its own
      case 'GatewayAccessRequested':
      case 'GatewayAccessApproved':
      case 'GatewayAccessRejected':
      case 'GatewayAccessDeactivated':
      case 'GatewayFeeModeChanged':
        return state; // decided by src/domain/gateway-access.ts, a view of this stream of its own
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  decide(state, command) {
    switch (command.type) {
      case 'RegisterUser': {
        if (state.registered) throw emailTaken();
        const expiresAt = new Date(command.now.getTime() + freePlan.durationDays * 86_400_000);
        return [
          UserRegistered({
            userId: command.userId,
            name: command.name,
            email: command.email,
            passwordHash: command.passwordHash,
            role: command.role,
            registeredAt: command.now.toISOString(),
          }),
          SubscriptionGranted({
            userId: command.userId,
            plan: { name: freePlan.name, slug: freePlan.slug },
            status: 'ACTIVE',
            expiresAt: expiresAt.toISOString(),
          }),
          PointsGranted({ userId: command.userId, points: freePlan.points, reason: 'free-plan' }),
        ];
      }
      case 'ChangePassword':
        if (!state.registered) throw refuse('NOT_FOUND', { message: 'user not found' });
        return [
          PasswordChanged({
            userId: state.userId,
            passwordHash: command.passwordHash,
            reason: command.reason,
            changedAt: command.now.toISOString(),
          }),
        ];
      case 'DebitPoints':
        if (!state.registered) throw refuse('NOT_FOUND', { message: 'user not found' });
        if (state.points < command.points) throw notEnoughPoints(command.points, state.points);
        return [
          PointsDebited({
            userId: state.userId,
            points: command.points,
            reason: command.reason,
            accountId: command.accountId,
          }),
        ];
      case 'RecordAccountDeleted':
        if (!state.registered) throw refuse('NOT_FOUND', { message: 'user not found' });
        return [
          AccountDeleted({ userId: state.userId, accountId: command.accountId, deletedAt: command.now.toISOString() }),
        ];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};

export const userEmailStream = (emailHash: string) => `user-email-${emailHash}`;

export type UserEmailClaim = { claimedBy: string | null };
export type ClaimEmail = { type: 'ClaimEmail'; userId: string };

/** One claim per email address: the event store's expected revision makes two registrations of one email impossible. */
export const userEmail: Decider<UserEmailClaim, ClaimEmail, UserEmailEvent> = {
  initialState: () => ({ claimedBy: null }),
  evolve: (_state, event) => ({ claimedBy: event.data.userId }),
  decide(state, command) {
    if (state.claimedBy === command.userId) return [];
    if (state.claimedBy !== null) throw emailTaken();
    return [UserEmailClaimed({ userId: command.userId })];
  },
};
