import { refuse } from '../errors.ts';
import {
  GatewayAccessApproved,
  GatewayAccessDeactivated,
  GatewayAccessRejected,
  GatewayAccessRequested,
  GatewayFeeModeChanged,
  type UserEvent,
} from '../events/user.ts';
import type { EventOf } from '../events/event.ts';
import type { Decider } from './decider.ts';

export type GatewayAccessStatus = 'NONE' | 'PENDING' | 'APPROVED' | 'REJECTED';

export type BusinessData = Omit<EventOf<typeof GatewayAccessRequested>['data'], 'userId' | 'requestedAt'>;

/** A merchant's access to the payment gateway, a view of their user stream. */
export type GatewayAccess = {
  userId: string | null;
  status: GatewayAccessStatus;
  note: string | null;
  feeToCustomer: boolean;
};

export type GatewayAccessCommand =
  | { type: 'RequestGatewayAccess'; business: BusinessData; now: Date }
  | { type: 'ApproveGatewayAccess'; adminId: string; now: Date }
  | { type: 'RejectGatewayAccess'; adminId: string; note: string; now: Date }
  | { type: 'DeactivateGatewayAccess'; adminId: string; note: string; now: Date }
  | { type: 'ChangeGatewayFeeMode'; feeToCustomer: boolean; now: Date };

const accessConflict = (status: GatewayAccessStatus, wanted: string) =>
  refuse('GATEWAY_ACCESS_CONFLICT', { message: `Gateway access is ${status}: ${wanted}` });

export const gatewayAccess: Decider<GatewayAccess, GatewayAccessCommand, UserEvent> = {
  // the user stream grows by a point debit per sync: read it from a snapshot of its own
  snapshot: { name: 'gateway-access', version: 1, every: 100 },
  cached: true,
  initialState: () => ({ userId: null, status: 'NONE', note: null, feeToCustomer: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'UserRegistered':
        return { ...state, userId: event.data.userId };
      case 'GatewayAccessRequested':
        return { ...state, status: 'PENDING', note: null };
      case 'GatewayAccessApproved':
        return { ...state, status: 'APPROVED', note: null };
      case 'GatewayAccessRejected':
        return { ...state, status: 'REJECTED', note: event.data.note };
      case 'GatewayAccessDeactivated':
        return { ...state, status: 'REJECTED', note: event.data.note };
      case 'GatewayFeeModeChanged':
        return { ...state, feeToCustomer: event.data.feeToCustomer };
      default:
        return state; // the stream's other events do not concern the gateway
    }
  },
  decide(state, command) {
    if (!state.userId) throw refuse('NOT_FOUND', { message: 'User not found' });
    const userId = state.userId;
    const at = command.now.toISOString();
    switch (command.type) {
      case 'RequestGatewayAccess':
        if (state.status === 'PENDING' || state.status === 'APPROVED')
          throw accessConflict(state.status, 'a new request can be sent only when access is NONE or REJECTED');
        return [GatewayAccessRequested({ userId, ...command.business, requestedAt: at })];
      case 'ApproveGatewayAccess':
        if (state.status !== 'PENDING') throw accessConflict(state.status, 'only a PENDING request can be approved');
        return [GatewayAccessApproved({ userId, approvedBy: command.adminId, approvedAt: at })];
      case 'RejectGatewayAccess':
        if (state.status !== 'PENDING') throw accessConflict(state.status, 'only a PENDING request can be rejected');
        return [GatewayAccessRejected({ userId, note: command.note, rejectedBy: command.adminId, rejectedAt: at })];
      case 'DeactivateGatewayAccess':
        if (state.status !== 'APPROVED') throw accessConflict(state.status, 'only APPROVED access can be deactivated');
        return [
          GatewayAccessDeactivated({ userId, note: command.note, deactivatedBy: command.adminId, deactivatedAt: at }),
        ];
      case 'ChangeGatewayFeeMode':
        if (state.feeToCustomer === command.feeToCustomer) return [];
        return [GatewayFeeModeChanged({ userId, feeToCustomer: command.feeToCustomer, changedAt: at })];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
};
