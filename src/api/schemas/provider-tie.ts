import { z } from 'zod';

const instant = z.iso.datetime({ offset: true });
const rupiah = z.int();

/** One item that explains part of a holding account's difference (src/audit/gateway-provider-tie.ts). */
const tieItem = z.object({
  kind: z
    .enum([
      'PAYOUT_IN_FLIGHT',
      'PAYOUT_NOT_SEEN',
      'CREDIT_NOT_BOOKED',
      'HAND_TRANSFER_SIDE_NOT_SEEN',
      'HAND_TRANSFER_NOT_RECORDED',
      'PAYOUT_NOT_RECORDED',
    ])
    .describe(
      "PAYOUT_IN_FLIGHT: what a withdrawal's transfers (each attempt, a retry after a failure too) had moved out before the cut-off, the payout not booked by then (a failed one given back nets to zero); PAYOUT_NOT_SEEN: a WALLET-A payout booked whose DEBIT came later (once a withdrawal); CREDIT_NOT_BOOKED: a credit since marking that no payment, suspense item or hand transfer had booked; HAND_TRANSFER_SIDE_NOT_SEEN: a hand transfer booked, its side seen later; HAND_TRANSFER_NOT_RECORDED: its side seen before it was recorded; PAYOUT_NOT_RECORDED: a DEBIT before the cut-off of a payout recorded as paid elsewhere (/paid) and booked only after it",
    ),
  amount: rupiah.describe('Its share of the difference (providerBalance - ledgerCash)'),
  reference: z.string().describe('The withdrawal, mutation or hand transfer it is about'),
  seenAt: instant.nullable().describe("The provider's time of its mutation (null: not seen yet)"),
  bookedAt: instant.nullable().describe('When the ledger placed it (null: not booked yet)'),
});

/** A holding account over the period and tied to its provider at the period's end. */
const tiedHoldingAccount = z.looseObject({
  accountId: z.uuid(),
  providerCode: z.string().nullable().optional().describe("The account's provider"),
  accountName: z.string().nullable().optional().describe("The account's name"),
  opening: rupiah,
  credited: rupiah,
  paidOut: rupiah,
  closing: rupiah,
  consistent: z.boolean().describe('opening + credited - paidOut = closing'),
  ledgerCash: rupiah.describe("Its cash in the ledger at the period's end"),
  providerBalance: rupiah
    .nullable()
    .describe(
      "The provider's balance at the period's end: the last synchronised balance less every mutation at or after the end (null: never synchronised)",
    ),
  providerBalanceAt: instant
    .nullable()
    .describe("What the balance is known as of: the period's end, or the last sync when that came earlier"),
  difference: rupiah.nullable().describe('providerBalance - ledgerCash'),
  items: z.array(tieItem).describe('The timing differences that explain it'),
  explained: rupiah.describe("The items' sum"),
  unexplained: rupiah.nullable().describe('difference - explained'),
  tied: z.boolean().nullable().describe('unexplained = 0 (null: no provider balance to tie to)'),
});

/** The holding accounts of a reconciliation, each tied to its provider. */
export const tiedHoldingAccounts = z.looseObject({
  balanced: z.boolean().describe("Every account's opening + movements = closing"),
  tied: z.boolean().describe('No holding account leaves a difference its items do not explain'),
  accounts: z.array(tiedHoldingAccount),
});
