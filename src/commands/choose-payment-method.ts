import { refuse } from '../errors.ts';
import { findProvider } from '../providers/catalogue.ts';
import { account, accountStream, type Account } from './account.ts';
import { handleStreams, streamRead } from './handle-streams.ts';
import { load, type CommandContext } from './handle.ts';
import { billOf, payTo, reservePayable, typeFor } from './pay-to.ts';
import { choiceRefusal, payment, paymentStream, type Payment } from './payment.ts';
import { findPayable, receiving, receivingStream } from './receiving.ts';
import type { SyncDeps } from './sync-account.ts';

/** The payment's receiving account, still linked and active; else 400. */
function receivingOf(state: Account) {
  const provider = state.status === 'linked' ? findProvider(state.providerCode) : undefined;
  if (state.status !== 'linked' || !provider) throw refuse('RECEIVING_ACCOUNT_GONE');
  if (!state.isActive) throw refuse('ACCOUNT_INACTIVE', { message: 'The receiving account is inactive: relogin needed' });
  return { linked: state, provider };
}

/**
 * The payer's choice on the payment page of a payment created without a type: one of the receiving provider's
 * types, billed then: where to pay (payTo), then in one append a payable amount unique on the receiving account (a
 * unique code, or the virtual account's own number) and the chosen method, guarded on the account as checked.
 * Choosing the same type again answers the same bill.
 */
export async function choosePaymentMethod(deps: SyncDeps, paymentId: string, asked: string): Promise<Exclude<Payment, { status: 'NONE' }>> {
  const current = (await load(deps, paymentStream(paymentId), payment)).state;
  if (current.status === 'NONE') throw refuse('PAYMENT_NOT_FOUND');
  if (current.status === 'PENDING' && current.type !== null && current.type === asked) return current;
  const context: CommandContext = { actor: 'payer', now: deps.clock.now(), correlationId: paymentId };
  const { linked, provider } = receivingOf((await load(deps, accountStream(current.receivingAccountId), account)).state);
  const type = typeFor(provider, asked)!;
  const refusal = choiceRefusal(current, deps.clock.now());
  if (refusal) throw refusal;
  const where = await payTo(deps, linked, type, context);

  const now = deps.clock.now();
  const reads = {
    account: streamRead(accountStream(linked.accountId), account),
    receiving: streamRead(receivingStream(linked.accountId), receiving),
    payment: streamRead(paymentStream(paymentId), payment),
  };
  const chosen = await handleStreams(
    deps,
    reads,
    loaded => {
      const state = loaded.payment.state;
      if (state.status === 'PENDING' && state.type === type) return { append: {}, result: null }; // chosen meanwhile, the same
      const refused = choiceRefusal(state, now);
      if (refused) throw refused;
      receivingOf(loaded.account.state); // deleted or deactivated since: refused now
      const reserved = receiving.decide(loaded.receiving.state, reservePayable(linked, where, { paymentId, amount: current.amount, expiresAt: new Date(current.expiresAt), now }));
      const payable = reserved[0]?.type === 'PayableReserved' ? reserved[0].data : findPayable(loaded.receiving.state, paymentId);
      if (!payable) throw refuse('PAYABLE_LAPSED');
      const method = payment.decide(state, { type: 'ChoosePaymentMethod', method: { type, ...billOf(where, payable) }, now });
      return { append: { receiving: reserved, payment: method }, guard: ['account'], result: null };
    },
    // a busy account's reservations race: one at a time from this process, and more attempts across processes
    { ...context, queueOn: reads.receiving.streamId, attempts: 20 },
  );
  // the page reloads right after: let the payments read model show the bill
  await deps.readModels.waitFor(chosen.position, undefined, ['payments']);
  return chosen.states.payment as Exclude<Payment, { status: 'NONE' }>;
}
