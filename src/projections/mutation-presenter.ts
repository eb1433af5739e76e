import type { MutationRecorded } from '../events/account.ts';
import type { EventOf } from '../events/event.ts';
import type { MutationRow } from './mutations.ts';

/** A mutation as GET /api/v1/mutations shows it, and as `mutation.created` carries it. */
export function presentMutation(m: MutationRow) {
  return {
    id: m.id,
    accountId: m.account_id,
    accountType: m.account_type === 'ewallet' ? 'wallet' : 'bank',
    amount: m.amount,
    type: m.type,
    description: m.description,
    senderName: m.sender_name,
    reference: m.reference,
    status: m.status,
    createdAt: m.created_at.toISOString(),
    ...(m.payment ? { payment: m.payment } : {}),
  };
}

/** The row the mutations read model makes of a recorded mutation of an account of `accountType`, before any payment. */
export function rowOfMutation(
  d: EventOf<typeof MutationRecorded>['data'],
  accountType: 'bank' | 'ewallet',
): MutationRow {
  return {
    id: d.mutationId,
    account_id: d.accountId,
    account_type: accountType,
    type: d.type,
    amount: d.amount,
    description: d.description,
    sender_name: d.senderName,
    reference: d.reference,
    status: 'SUCCESS',
    created_at: new Date(d.occurredAt),
    payment: null,
  };
}
