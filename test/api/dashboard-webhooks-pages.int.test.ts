import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueWebhookEvent } from '../../src/webhooks/outbox.ts';
import { nextUuid } from '../support/ids.ts';
import { signedInBrowser, textOf, type PageBrowser } from '../support/pages.ts';
import { eventually } from '../support/sandbox.ts';
import type { TestService } from '../support/service.ts';
import { shortSchedule, startReceiver, startWebhookTestService } from '../webhooks/support.ts';

let service: TestService;
beforeAll(async () => {
  service = await startWebhookTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' }, shortSchedule);
});
afterAll(async () => service?.close());

/** The signed-in user's id, as /api/auth/me tells it. */
const userIdOf = async (browser: PageBrowser) =>
  (
    await service.app.inject({
      method: 'GET',
      url: '/api/auth/me',
      cookies: { svc_token: browser.jar.get('svc_token')! },
    })
  ).json().id as string;

describe('the webhooks page', () => {
  it('adds an endpoint whose secret is shown once, shows its delivery log, redelivers, and removes it', async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    try {
      const { browser } = await signedInBrowser(service);
      const added = await browser.post('/dashboard/webhooks', { url: receiver.url });
      expect(added.statusCode).toBe(201);
      expect(textOf(added.body, 'new-endpoint-secret')).toMatch(/^whsec_/);
      const listed = await browser.get('/dashboard/webhooks');
      expect(listed.body).toContain(receiver.url);
      expect(listed.body).not.toContain(textOf(added.body, 'new-endpoint-secret')!);
      const endpointId = /data-endpoint-id="([^"]+)"/.exec(listed.body)![1]!;

      const eventId = nextUuid();
      await enqueueWebhookEvent(service.deps, {
        ownerId: await userIdOf(browser),
        eventId,
        type: 'payment.expired',
        createdAt: service.clock.now().toISOString(),
        data: { id: nextUuid(), status: 'EXPIRED' },
      });
      const failed = await eventually(async () => {
        const page = await browser.get(`/dashboard/webhooks/${endpointId}?status=failed`);
        return page.body.includes('data-delivery-id') ? page : null;
      }, 15_000);
      expect(failed.body).toContain(eventId);
      expect(failed.body).toContain('HTTP 500');
      const deliveryId = /data-delivery-id="([^"]+)"/.exec(failed.body)![1]!;
      expect((await browser.get(`/dashboard/webhooks/${endpointId}?status=succeeded`)).body).not.toContain(
        'data-delivery-id',
      );

      const sentBefore = receiver.received.length;
      const again = await browser.post(`/dashboard/webhooks/${endpointId}/deliveries/${deliveryId}/redeliver`);
      expect(again.statusCode).toBe(303);
      expect(again.headers.location).toBe(`/dashboard/webhooks/${endpointId}?done=redelivered`);
      await eventually(async () => receiver.received.length > sentBefore, 15_000);
      await eventually(
        async () => (await browser.get(`/dashboard/webhooks/${endpointId}`)).body.includes(', manual'),
        15_000,
      );

      const removed = await browser.post(`/dashboard/webhooks/${endpointId}/remove`);
      expect(removed.headers.location).toBe('/dashboard/webhooks?done=endpoint-removed');
      expect((await browser.get('/dashboard/webhooks')).body).not.toContain(receiver.url);
      expect((await browser.get(`/dashboard/webhooks/${endpointId}`)).statusCode).toBe(404);
    } finally {
      await receiver.close();
    }
  });

  it("answers 404 for another user's endpoint and delivery, and refuses a URL that is not http(s) with a message", async () => {
    const owner = await signedInBrowser(service);
    await owner.browser.post('/dashboard/webhooks', { url: 'https://hooks.example/ours' });
    const endpointId = /data-endpoint-id="([^"]+)"/.exec((await owner.browser.get('/dashboard/webhooks')).body)![1]!;

    const { browser } = await signedInBrowser(service);
    expect((await browser.get(`/dashboard/webhooks/${endpointId}`)).statusCode).toBe(404);
    await browser.get('/dashboard/webhooks');
    expect((await browser.post(`/dashboard/webhooks/${endpointId}/remove`)).statusCode).toBe(404);
    expect(
      (await browser.post(`/dashboard/webhooks/${endpointId}/deliveries/${nextUuid()}/redeliver`)).statusCode,
    ).toBe(404);
    expect((await owner.browser.get('/dashboard/webhooks')).body).toContain('https://hooks.example/ours');

    const refused = await browser.post('/dashboard/webhooks', { url: 'ftp://hooks.example/x' });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body, 'notice')).toMatch(/^URL webhook ditolak: bukan URL http atau https yang sah/);
    expect(refused.body).toContain('value="ftp://hooks.example/x"');
  });
});
