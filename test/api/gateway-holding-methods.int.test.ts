import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdingAccountsStream } from '../../src/domain/holding-accounts.ts';
import { HoldingAccountMarked } from '../../src/events/holding-accounts.ts';
import { gatewayMethodsOf } from '../../src/providers/catalogue.ts';
import { toNewEvents } from '../../src/store/commands/handle.ts';
import { approvedMerchant, signedInAdmin, type Admin } from '../support/gateway.ts';
import { linkWalletA, paymentBody } from '../support/payments.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A holding account serves the gateway methods its provider's catalogue offers now, not the list the marking recorded:
 * a virtual account bank added to the catalogue is served by the provider's holding accounts without marking them
 * again.
 */

let service: TestService;
let admin: Admin;
let holdingId: string;
beforeAll(async () => {
  service = await startTestService();
  admin = await signedInAdmin(service);
  // linked, and marked as a holding account by a version whose catalogue had one VA bank for WALLET-A
  ({ accountId: holdingId } = await linkWalletA(service, admin));
  const { position } = await service.store.append(
    holdingAccountsStream,
    toNewEvents(
      [
        HoldingAccountMarked({
          accountId: holdingId,
          providerCode: 'WALLET-A',
          methods: ['VA-BANK1'],
          markedBy: admin.id,
          markedAt: service.clock.now().toISOString(),
        }),
      ],
      { actor: admin.id, now: service.clock.now() },
    ),
    'any',
  );
  expect(await service.projections.waitFor(position, 10_000)).toBe(true);
}, 60_000);
afterAll(async () => service?.close());

const walletA = gatewayMethodsOf('WALLET-A');

describe('the methods a holding account serves', () => {
  it('are its provider’s gateway methods today, more than the marking recorded', () => {
    expect(walletA).toEqual(expect.arrayContaining(['VA-BANK1', 'VA-BANK2', 'VA-BANK3']));
  });

  it('are what a merchant is offered', async () => {
    const merchant = await approvedMerchant(service, admin);
    const response = await merchant.call('GET', '/api/v1/gateway');
    expect(response.statusCode, response.body).toBe(200);
    const offered = response.json().data.methods.map((m: { value: string }) => m.value);
    expect(offered).toEqual(expect.arrayContaining(walletA));
  });

  it('take a payment of a VA bank the marking did not name', async () => {
    const merchant = await approvedMerchant(service, admin);
    const response = await merchant.call('POST', '/api/v1/payments', {
      ...paymentBody('GATEWAY', { type: 'VA-BANK3', amount: 150_000 }),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data).toMatchObject({ type: 'VA-BANK3', walletAccountId: 'GATEWAY' });
  });

  it('are what the admin sees on the holding account', async () => {
    const response = await admin.session('GET', '/api/admin/gateway/holding-accounts');
    expect(response.statusCode, response.body).toBe(200);
    const shown = response.json().data.find((h: { accountId: string }) => h.accountId === holdingId);
    expect(shown.methods).toEqual(walletA);
  });
});
