import { z } from 'zod';
import { accountKinds } from '../../audit/gateway-reconciliation.ts';
import { ageingBuckets } from '../../audit/suspense-ageing.ts';

const instant = z.iso.datetime({ offset: true });
const kind = z.enum(accountKinds).describe("The account's kind, as the trial balance's columns total them");
const rupiah = z.int();

/** One account carried through the period (src/audit/gateway-carried-balances.ts). */
const carriedAccount = z.object({
  account: z
    .string()
    .describe('The ledger account: holding:<accountId>, merchant:<id>:pending|settled|onHold, platform:…'),
  name: z
    .string()
    .nullable()
    .optional()
    .describe(
      "Whose it is: the merchant's business name, the holding account's provider and name (null: a platform account)",
    ),
  kind,
  opening: rupiah.describe(
    'The sum of its postings that took effect before the period (debit positive, credit negative)',
  ),
  debits: rupiah.describe('Its debits in the period (by their effective time)'),
  credits: rupiah.describe('Its credits in the period, as a positive number'),
  closing: rupiah.describe(
    "The sum of its postings that took effect before the period's end: the next period's opening",
  ),
  consistent: z.boolean().describe('closing = opening + debits - credits'),
});

/** The trial balance: its days, totals and unbalanced entries (not detailed), and every account carried. */
export const carriedTrialBalance = z.looseObject({
  balanced: z
    .boolean()
    .describe('Every day and entry balanced, every account carried, openings and closings sum to zero'),
  accounts: z.array(carriedAccount).describe('Every ledger account with a posting before the period ends'),
  kinds: z
    .array(
      z.object({
        kind,
        accounts: z.int(),
        opening: rupiah,
        debits: rupiah,
        credits: rupiah,
        closing: rupiah,
      }),
    )
    .describe('The accounts summed by kind'),
});

/** Suspense as at the period's end (src/audit/suspense-ageing.ts). */
export const suspenseAgeing = z
  .object({
    asAt: instant.describe("The period's end (00:00 WIB after its last day)"),
    asOfDay: z.string().meta({ format: 'date' }).describe('The last WIB day counted'),
    buckets: z.array(
      z.object({ bucket: z.enum(ageingBuckets), items: z.int(), amount: rupiah }).describe('Ages in WIB days'),
    ),
    total: z.object({ items: z.int(), amount: rupiah }),
    items: z
      .array(
        z.object({
          id: z.uuid(),
          accountId: z.uuid(),
          providerCode: z.string().nullable().optional(),
          accountName: z.string().nullable().optional(),
          amount: rupiah,
          senderName: z.string(),
          reference: z.string().nullable(),
          receivedAt: instant,
          ageDays: z.int().describe('Whole WIB days from the day it came to the last day of the period'),
          bucket: z.enum(ageingBuckets),
        }),
      )
      .describe('Oldest first, at most 1,000'),
  })
  .describe('Every suspense credit still open at the end of the period, whenever it came, and their ages');
