import type { AccountRow } from '../projections/accounts.ts';

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

export function pagination(total: number, page: number, limit: number) {
  const totalPages = Math.ceil(total / limit);
  return { total, page, limit, totalPages, hasMore: page < totalPages };
}
