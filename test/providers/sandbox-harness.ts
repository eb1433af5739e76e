import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { TestClock } from '../../src/clock.ts';
import { buildSandbox, type SandboxOptions } from '../../src/providers/sandbox/server.ts';

/** A sandbox on a test clock, driven through `inject`, with the calls a connector and a tester make. */
export async function sandboxHarness(options: Partial<SandboxOptions> = {}) {
  const clock = options.clock instanceof TestClock ? options.clock : new TestClock();
  const sandbox = await buildSandbox({ ...options, clock });
  const { app } = sandbox;
  const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as never });
  const get = (url: string, token?: string) =>
    app.inject({ method: 'GET', url, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

  const otpOf = async (phone: string) => {
    const response = await get(`/sandbox/otp?phone=${encodeURIComponent(phone)}`);
    if (response.statusCode !== 200) throw new Error(`no OTP for ${phone}: ${response.body}`);
    return response.json<{ code: string }>().code;
  };
  const loginBank = (providerCode: string, body: { username: string; password: string; accountNumber: string }) =>
    post(`/providers/${providerCode}/login`, body);
  /** A whole wallet login that needs no second OTP: send, read the inbox, verify. */
  const loginWallet = async (providerCode: string, phoneNumber: string, pin?: string) => {
    const pinAtOtp = providerCode === 'WALLET-A' ? (pin ?? '123456') : undefined;
    const pinAtVerify = providerCode === 'WALLET-B' ? (pin ?? '123456') : undefined;
    const sent = await post(`/providers/${providerCode}/otp`, { phoneNumber, pin: pinAtOtp });
    expectStatus(sent, 200);
    const verified = await post(`/providers/${providerCode}/otp/verify`, {
      challengeId: sent.json().challengeId,
      otp: await otpOf(phoneNumber),
      pin: pinAtVerify,
    });
    expectStatus(verified, 200);
    return verified.json<{
      sessionToken: string;
      expiresAt: string;
      account: { accountRef: string; holderName: string };
    }>();
  };
  const faults = (body: Record<string, unknown>) => post('/sandbox/faults', body);
  const addTransaction = (body: Record<string, unknown>) => post('/sandbox/transactions', body);
  const balanceOf = async (providerCode: string, accountRef: string, token: string) =>
    (await get(`/providers/${providerCode}/accounts/${accountRef}/balance`, token)).json<{ balance: number }>().balance;

  return {
    ...sandbox,
    clock,
    post,
    get,
    otpOf,
    loginBank,
    loginWallet,
    faults,
    addTransaction,
    balanceOf,
    close: () => app.close(),
  };
}

export type SandboxHarness = Awaited<ReturnType<typeof sandboxHarness>>;

/** Status and error code in one assertion, with the body in the message when it fails. */
export function expectStatus(response: LightMyRequestResponse, status: number, error?: string): void {
  expect(response.statusCode, response.body).toBe(status);
  if (error !== undefined) expect(response.json(), response.body).toMatchObject({ error, message: expect.any(String) });
}
