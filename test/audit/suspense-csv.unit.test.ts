import { describe, expect, it } from 'vitest';
import { reconciliationCsv } from '../../src/audit/gateway-reconciliation-csv.ts';
import type { GatewayReconciliation } from '../../src/audit/gateway-reconciliation.ts';
import type { NamedSuspenseRow } from '../../src/audit/reconciliation-names.ts';

const receivedAt = new Date('2026-01-05T02:30:00.000Z');
const credit = {
  id: 'mutation-1:0',
  accountId: 'holding-1',
  providerCode: 'WALLET-A',
  accountName: 'Holding, A',
  amount: 150_000,
  senderName: 'SITI',
  reference: '=1+2',
};
const item: NamedSuspenseRow = {
  ...credit,
  mutationId: 'mutation-1',
  receivedAt,
  status: 'OPEN',
  merchantId: null,
  paymentId: null,
  fee: null,
  net: null,
  refundReference: null,
  note: null,
  resolvedBy: null,
  resolvedAt: null,
  suggestion: { paymentId: 'payment-1', merchantId: 'merchant-1', reason: 'LATE_EXACT_PAYMENT' },
  untransferred: null,
};
const ageing = {
  asAt: '2026-01-31T17:00:00.000Z',
  asOfDay: '2026-01-31',
  buckets: [],
  total: { items: 1, amount: 150_000 },
  items: [{ ...credit, receivedAt: receivedAt.toISOString(), ageDays: 27, bucket: 'over-30' as const }],
};
// the two suspense tables read the suspense section only
const report = { suspense: { items: [item], ageing } } as unknown as GatewayReconciliation;
const lines = (csv: string) => csv.slice(1).trimEnd().split('\r\n');

describe('the suspense tables', () => {
  it('say which credit a row is in the same columns, in the same order, after its ids', () => {
    const [suspense] = lines(reconciliationCsv(report, 'suspense'));
    const [open] = lines(reconciliationCsv(report, 'suspense-open'));
    const credit = [
      'holdingAccountId',
      'providerCode',
      'accountName',
      'amount',
      'senderName',
      'reference',
      'receivedAt',
    ].join(',');
    expect(suspense).toContain(`suspenseId,mutationId,${credit},status,`);
    expect(open).toBe(`suspenseId,${credit},ageDays,bucket`);
  });

  it('write the suspense items as they are: names, WIB times, formulas kept as text, the suggestion of an open one', () =>
    expect(reconciliationCsv(report, 'suspense')).toBe(
      '\uFEFF' +
        'suspenseId,mutationId,holdingAccountId,providerCode,accountName,amount,senderName,reference,receivedAt,status,' +
        'merchantId,merchantName,paymentId,fee,paymentFee,feeDifference,net,refundReference,resolvedBy,resolvedAt,' +
        'suggestedPaymentId,suggestion\r\n' +
        'mutation-1:0,mutation-1,holding-1,WALLET-A,"Holding, A",150000,SITI,\'=1+2,2026-01-05T09:30:00+07:00,OPEN,' +
        ',,,,,,,,,,payment-1,LATE_EXACT_PAYMENT\r\n',
    ));

  it('write the credits open at the end with their age and bucket', () =>
    expect(reconciliationCsv(report, 'suspense-open')).toBe(
      '\uFEFF' +
        'suspenseId,holdingAccountId,providerCode,accountName,amount,senderName,reference,receivedAt,ageDays,bucket\r\n' +
        'mutation-1:0,holding-1,WALLET-A,"Holding, A",150000,SITI,\'=1+2,2026-01-05T09:30:00+07:00,27,over-30\r\n',
    ));
});
