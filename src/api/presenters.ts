import type { AccountRow } from '../projections/accounts.ts';
import type { MutationRow } from '../projections/mutations.ts';

/** An account as the key surface shows it. */
export function presentAccount(a: AccountRow) {
  return {
    id: a.id,
    type: a.type,
    providerCode: a.provider_code,
    providerName: a.provider_name,
    accountName: a.account_name,
    ...(a.account_number !== null ? { accountNumber: a.account_number } : {}),
    ...(a.phone_number !== null ? { phoneNumber: a.phone_number } : {}),
    balance: a.balance,
    lastSync: a.last_sync?.toISOString() ?? null,
    intervalMinutes: a.interval_minutes,
    isActive: a.is_active,
    createdAt: a.created_at.toISOString(),
    nextSyncAt: a.next_sync_at?.toISOString() ?? null,
  };
}

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

export function pagination(total: number, page: number, limit: number) {
  const totalPages = Math.ceil(total / limit);
  return { total, page, limit, totalPages, hasMore: page < totalPages };
}
