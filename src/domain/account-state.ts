import { refuse } from '../errors.ts';
import type { Sealed } from '../events/account.ts';

export type LinkedAccount = {
  status: 'linked';
  accountId: string;
  ownerId: string;
  type: 'bank' | 'ewallet';
  providerCode: string;
  accountRef: string;
  isActive: boolean;
  intervalMinutes: number;
  credentials: Sealed | null;
  session: Sealed | null;
  lastSlot: string | null;
  cursor: string | null;
  recentTransactionIds: string[];
  consecutiveFailures: number;
  /** OTP logins that restored the session, newest last: a login applied twice restores once */
  restoredBy: string[];
  /** scheduled syncs before this instant (ISO) were paid for when the account was created */
  syncsPaidUntil?: string | null;
  /** the merchant's static QRIS, once read from the provider */
  staticQris?: string | null;
  /** the last synchronised balance, less what transfers debited since (and plus what failed ones gave back) */
  balance?: number;
  /**
   * Outbound transfers recorded here, newest last: the provider's copy of a transfer's DEBIT carries our transfer id
   * as its reference, so a sync records it once, whatever its transaction id
   */
  transferRefs?: string[];
  /** amounts held by transfers sent and not answered yet, by transfer id */
  held?: Record<string, number>;
};

// JSON only (strings, numbers, arrays): the state is snapshotted
export type Account = { status: 'none' } | LinkedAccount;

export const accountNotFound = () => refuse('ACCOUNT_NOT_FOUND');
