import { describe, it } from 'vitest';
import { ledgerAdjustments, type LedgerAdjustmentCommand } from '../../src/domain/ledger-adjustments.ts';
import { HoldingOpeningBooked, LedgerAdjustmentBooked } from '../../src/events/ledger-adjustments.ts';
import { specification } from '../support/decider.ts';

const given = specification(ledgerAdjustments);
const qris = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const adminId = '3c4d5e6f-7a8b-4c9d-8e0f-2a3b4c5d6e7f';
const entryId = '4d5e6f7a-8b9c-4d0e-9f1a-3b4c5d6e7f8a';
const now = new Date('2026-01-05T03:00:00.000Z');
const syncedAt = new Date('2026-01-05T02:59:59.000Z');

type Opening = Extract<LedgerAdjustmentCommand, { type: 'BookHoldingOpening' }>;
type Adjustment = Extract<LedgerAdjustmentCommand, { type: 'BookLedgerAdjustment' }>;
const opening = (fields: Partial<Opening> = {}): Opening => ({
  type: 'BookHoldingOpening',
  entryId,
  accountId: qris,
  providerBalance: 8_712_500,
  providerBalanceAt: syncedAt,
  ledgerCash: 0,
  adminId,
  now,
  ...fields,
});
const adjustment = (fields: Partial<Adjustment> = {}): Adjustment => ({
  type: 'BookLedgerAdjustment',
  entryId,
  accountId: qris,
  amount: -6_500,
  effectiveAt: new Date('2026-01-05T02:00:00.000Z'),
  reason: 'Biaya admin bank',
  holdingAccountIds: [qris],
  ledgerCash: 10_000,
  adminId,
  now,
  ...fields,
});
const booked = (amount: number, ledgerCash = 0) =>
  HoldingOpeningBooked({
    entryId,
    accountId: qris,
    amount,
    providerBalance: 8_712_500,
    ledgerCash,
    effectiveAt: syncedAt.toISOString(),
    bookedBy: adminId,
    bookedAt: now.toISOString(),
    postings: [
      { account: `holding:${qris}`, amount },
      { account: 'platform:equity', amount: -amount },
    ],
  });

describe('ledger adjustments', () => {
  describe('an opening', () => {
    it("books the provider's balance against equity when the ledger holds no cash there", () => {
      given([])
        .when(opening())
        .then([booked(8_712_500)]);
    });

    it('is booked once: opening again changes nothing', () => {
      given([booked(8_712_500)])
        .when(opening())
        .then([]);
    });

    it("books only the provider's balance beyond the ledger's cash", () => {
      given([])
        .when(opening({ ledgerCash: 8_700_000 }))
        .then([booked(12_500, 8_700_000)]);
    });

    it("books nothing when the ledger's cash agrees with the provider", () => {
      given([])
        .when(opening({ ledgerCash: 8_712_500 }))
        .then([]);
    });
  });

  describe("an admin's dated entry", () => {
    it('books a platform account against equity', () => {
      given([])
        .when(adjustment())
        .then([
          LedgerAdjustmentBooked({
            entryId,
            accountId: qris,
            amount: -6_500,
            effectiveAt: '2026-01-05T02:00:00.000Z',
            reason: 'Biaya admin bank',
            bookedBy: adminId,
            bookedAt: now.toISOString(),
            postings: [
              { account: `holding:${qris}`, amount: -6_500 },
              { account: 'platform:equity', amount: 6_500 },
            ],
          }),
        ]);
    });

    it("is refused on an account that is not the platform's", () => {
      given([])
        .when(adjustment({ holdingAccountIds: [] }))
        .thenThrows('LEDGER_ADJUSTMENT_INVALID');
    });

    it('is refused dated after now', () => {
      given([])
        .when(adjustment({ effectiveAt: new Date(now.getTime() + 1) }))
        .thenThrows('LEDGER_ADJUSTMENT_INVALID');
    });

    it("is refused when it would take the account's cash below zero", () => {
      given([])
        .when(adjustment({ ledgerCash: 6_499 }))
        .thenThrows('HOLDING_CASH_SHORT');
    });
  });
});
