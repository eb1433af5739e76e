import { randomInt } from 'node:crypto';
import type { ReceivingEvent } from '../events/receiving.ts';
import { streamRead, type StreamRead } from '../store/commands/handle-streams.ts';
import {
  checkedState,
  handleCommand,
  load,
  type CommandContext,
  type EventSourcing,
} from '../store/commands/handle.ts';
import { payableClaim, payableClaimStream, TotalHeld, type PayableClaim } from '../domain/payable-claims.ts';
import type { Credit, Payable } from '../domain/payables.ts';
import type { Payment } from '../domain/payment.ts';
import { matchCredit, maxUniqueCode, noFreeCode, receiving, receivingStream } from '../domain/receiving.ts';

/**
 * Bills a unique-code payment: from a random code on, the first total that neither a claim nor the account's receiving
 * stream (payments reserved there before claims, VA bills) holds is claimed by `record`, which appends the claim with
 * the payment's own events in one append. A total claimed meanwhile (the append refused, the claim read again and
 * held) moves on to the next code; every code held: 409 NO_UNIQUE_CODE. `highestCode` (at most 999) keeps the total
 * within a method's maximum: the codes are 1 to it.
 */
export async function withUniqueCode(
  deps: EventSourcing,
  bill: { accountId: string; amount: number; now: Date; highestCode?: number | null | undefined },
  record: (claim: StreamRead<PayableClaim, ReceivingEvent>, uniqueCode: number) => Promise<Payment>,
): Promise<Payment> {
  const at = bill.now.toISOString();
  const legacy = await checkedState(deps, receivingStream(bill.accountId), receiving);
  const codes = Math.min(maxUniqueCode, bill.highestCode ?? maxUniqueCode);
  const first = codes > 0 ? randomInt(1, codes + 1) : 1;
  for (let i = 0; i < codes; i++) {
    const code = ((first - 1 + i) % codes) + 1;
    const totalAmount = bill.amount + code;
    if (legacy.payables.totalHeld(totalAmount, at)) continue;
    // a total this process saw held is refused by the claim's decision on its cached state (TotalHeld), unwritten
    const claim = streamRead(payableClaimStream(bill.accountId, totalAmount), payableClaim);
    try {
      return await record(claim, code);
    } catch (err) {
      if (!(err instanceof TotalHeld)) throw err;
    }
  }
  throw noFreeCode(bill.amount);
}

/**
 * The payable a synchronised credit pays on the account: a VA bill whose number the reference carries (receiving
 * stream), the claim on a total of exactly the amount, or a bill reserved on the receiving stream before claims;
 * one still held when the money was booked first.
 */
export async function matchPayable(
  deps: EventSourcing,
  accountId: string,
  credit: Credit,
): Promise<{ payable: Payable; claimed: boolean } | null> {
  const legacy = matchCredit((await load(deps, receivingStream(accountId), receiving)).state, credit);
  const claimed = (await load(deps, payableClaimStream(accountId, credit.amount), payableClaim)).state.holder;
  const candidates = [
    ...(legacy?.vaNumber ? [{ payable: legacy, claimed: false }] : []),
    ...(claimed ? [{ payable: claimed, claimed: true }] : []),
    ...(legacy && !legacy.vaNumber ? [{ payable: legacy, claimed: false }] : []),
  ];
  return candidates.find(c => c.payable.expiresAt >= credit.occurredAt) ?? candidates[0] ?? null;
}

/**
 * Frees what a payment that ended held: its claim on its total and its reservation on the receiving stream (older or
 * VA), or only the one `claimed` says it held when the caller knows.
 */
export async function releasePayable(
  deps: EventSourcing,
  ended: {
    accountId: string;
    paymentId: string;
    totalAmount: number | null;
    claimed?: boolean;
    reason: 'completed' | 'expired';
    now: Date;
  },
  context: CommandContext,
) {
  const { accountId, paymentId, totalAmount, claimed, reason, now } = ended;
  if (totalAmount !== null && claimed !== false) {
    await handleCommand(
      deps,
      payableClaimStream(accountId, totalAmount),
      payableClaim,
      { type: 'ReleaseTotal', accountId, paymentId, reason, now },
      context,
    );
  }
  if (claimed !== true)
    await handleCommand(
      deps,
      receivingStream(accountId),
      receiving,
      { type: 'ReleasePayable', paymentId, reason, now },
      context,
    );
}
