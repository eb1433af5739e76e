import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import { createPayment, linkServiceWallet, linkWalletA, paymentBody } from '../support/payments.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

let service: TestService;
beforeAll(async () => {
  // up to 8 transfers of one user at once, every QR among them decoded (one user's images queue behind each other)
  service = await startTestService({ QR_DECODE_QUEUE_PER_TENANT: '8', QR_DECODE_QUEUE: '16' });
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Op = { kind: 'bank'; amount: number } | { kind: 'qr'; amount: number } | { kind: 'sync' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.integer({ min: 10, max: 60 }).map(k => ({ kind: 'bank' as const, amount: k * 1000 })),
  fc.integer({ min: 1, max: 60 }).map(k => ({ kind: 'qr' as const, amount: k * 1000 })),
  fc.constant({ kind: 'sync' as const }),
);

const call = (caller: Caller, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  caller.call(method, url, payload);

describe('transfers racing on one wallet', () => {
  it('never debit twice, never go below zero, and our mutations equal the provider record', async () => {
    const merchant = await keyHolder(service);
    const { accountId: shop } = await linkServiceWallet(merchant);
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 8 }), async ops => {
        const owner = await keyHolder(service);
        const wallet = await linkWalletA(service, owner);
        // a wallet of exactly 100,000: what the sandbox seeded it with is spent first, so the transfers compete for little
        const seeded = (await sandboxOf(service).account('WALLET-A', wallet.phoneNumber)).balance;
        if (seeded > 0)
          await sandboxOf(service).addTransaction({
            providerCode: 'WALLET-A',
            accountRef: wallet.phoneNumber,
            type: 'DEBIT',
            amount: seeded,
            senderName: 'Spent',
          });
        await sandboxOf(service).addTransaction({
          providerCode: 'WALLET-A',
          accountRef: wallet.phoneNumber,
          type: 'CREDIT',
          amount: 100_000,
          senderName: 'Top up',
        });
        await call(owner, 'GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
        const start = await sandboxOf(service).account('WALLET-A', wallet.phoneNumber);

        // what each operation needs first, made beforehand: a validated destination, a bill's QR image
        const prepared = await Promise.all(
          ops.map(async o => {
            if (o.kind === 'bank') {
              const bank = (
                await call(owner, 'POST', `/api/v1/accounts/${wallet.accountId}/transfer`, {
                  action: 'wallet-a-bank-list',
                })
              ).json().data[0];
              const init = await call(owner, 'POST', `/api/v1/accounts/${wallet.accountId}/transfer`, {
                action: 'wallet-a-bank-init',
                accountNumber: '1234567890',
                amount: String(o.amount),
                ...bank,
              });
              return init.statusCode === 200
                ? { o, index: init.json().data.bankAccountIndexNo as string }
                : { o, index: null };
            }
            if (o.kind === 'qr') {
              const bill = await createPayment(merchant, paymentBody(shop, { type: 'QRIS-DYNAMIC', amount: o.amount }));
              return {
                o,
                png: (await service.app.inject({ method: 'GET', url: `/pay/${bill.id}/qris.png` })).rawPayload,
              };
            }
            return { o };
          }),
        );

        const answers = await Promise.all(
          prepared.map(async p => {
            if (p.o.kind === 'sync') return call(owner, 'GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
            if (p.o.kind === 'bank') {
              if (!('index' in p) || !p.index) return null;
              // two creates with one index: at most one moves money
              const body = { action: 'wallet-a-bank-create', bankAccountIndexNo: p.index, amount: String(p.o.amount) };
              const [a, b] = await Promise.all([
                call(owner, 'POST', `/api/v1/accounts/${wallet.accountId}/transfer`, body),
                call(owner, 'POST', `/api/v1/accounts/${wallet.accountId}/transfer`, body),
              ]);
              expect([a.statusCode, b.statusCode].filter(s => s === 200).length).toBeLessThanOrEqual(1);
              return a.statusCode === 200 ? a : b;
            }
            const boundary = '----race';
            const form = Buffer.concat([
              Buffer.from(
                `--${boundary}\r\ncontent-disposition: form-data; name="action"\r\n\r\nwallet-a-qris-create\r\n`,
              ),
              Buffer.from(
                `--${boundary}\r\ncontent-disposition: form-data; name="qrImage"; filename="qr.png"\r\ncontent-type: image/png\r\n\r\n`,
              ),
              (p as { png: Buffer }).png,
              Buffer.from(`\r\n--${boundary}--\r\n`),
            ]);
            return service.app.inject({
              method: 'POST',
              url: `/api/v1/accounts/${wallet.accountId}/transfer`,
              headers: { 'x-api-key': owner.key, 'content-type': `multipart/form-data; boundary=${boundary}` },
              payload: form,
            });
          }),
        );
        for (const a of answers) if (a) expect([200, 400], a.body).toContain(a.statusCode);

        await call(owner, 'GET', `/api/v1/accounts/${wallet.accountId}/refresh`);
        const record = await sandboxOf(service).account('WALLET-A', wallet.phoneNumber);
        const ours = (await call(owner, 'GET', `/api/v1/accounts/${wallet.accountId}`)).json().data.balance as number;
        expect(record.balance).toBeGreaterThanOrEqual(0);
        expect(ours).toBe(record.balance);
        // every transfer the provider made appears once among our mutations, and nothing else was debited
        const providerDebits = record.transactions.filter(
          t => t.type === 'DEBIT' && !start.transactions.some(s => s.id === t.id),
        );
        const succeeded = answers.filter(a => a && a.statusCode === 200 && 'success' in (a.json() as object)).length;
        expect(providerDebits.length).toBe(succeeded);
        expect(new Set(providerDebits.map(t => t.reference)).size).toBe(providerDebits.length);
        const mutations = (
          await call(owner, 'GET', `/api/v1/mutations?accountId=${wallet.accountId}&type=DEBIT&limit=100`)
        ).json().data as { amount: number }[];
        const startDebits = start.transactions.filter(t => t.type === 'DEBIT').length;
        expect(mutations.length).toBe(startDebits + providerDebits.length);
      }),
      { numRuns: 6 },
    );
  }, 120_000);
});
