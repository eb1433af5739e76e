import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHolder } from '../support/http.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

/** The OTP send limits count the sends that reached the provider: our own refusals cost the phone and the key nothing. */
let service: TestService;
beforeAll(async () => {
  service = await startTestService({ OTP_SEND_LIMIT_PER_PHONE: '2', OTP_SEND_LIMIT_PER_KEY: '4' });
});
afterAll(async () => service?.close());

type Caller = Awaited<ReturnType<typeof keyHolder>>;
let phoneSeed = 0;
const newPhone = () => `0817${String(process.pid % 1000).padStart(3, '0')}${String(++phoneSeed).padStart(5, '0')}`;
const newAccount = (providerCode: string) => ({
  providerCode,
  accountName: `${providerCode} utama`,
  intervalMinutes: 60,
});
const post = (caller: Caller, body: Record<string, unknown>) => caller.call('POST', '/api/v1/accounts', body);

/** Sends that our own checks refuse, for one phone number: none asks the provider for a code. */
const typos = (phoneNumber: string): Record<string, unknown>[] => [
  { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-Z') }, // unknown provider
  { action: 'wallet-a-send-otp', phoneNumber, ...newAccount('WALLET-A') }, // no PIN
  { action: 'wallet-a-send-otp', phoneNumber, pin: '12345', ...newAccount('WALLET-A') }, // a PIN of 5 digits
  { action: 'wallet-c-send-otp', phoneNumber, providerCode: 'WALLET-C', intervalMinutes: 60 }, // no accountName
  { action: 'wallet-b-send-otp', phoneNumber, ...newAccount('WALLET-C') }, // the action of another wallet
  { action: 'wallet-c-send-otp', phoneNumber, accountId: nextUuid() }, // relogin of an account that is not ours
];

describe('OTP send limits count only sends that reached the provider', () => {
  it('a phone number is not locked out by refused sends: its allowance stays for real ones', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    for (const body of typos(phoneNumber)) {
      const refused = await post(caller, body);
      expect([400, 404], `${JSON.stringify(body)}: ${refused.body}`).toContain(refused.statusCode);
    }
    const send = { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') };
    expect((await post(caller, send)).statusCode).toBe(200);
    expect((await post(caller, send)).statusCode).toBe(200);
    const third = await post(caller, send);
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({
      status: 'error',
      code: 'RATE_LIMITED',
      message: expect.stringContaining('phone number'),
    });
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('an API key is not used up by refused sends either', async () => {
    const caller = await keyHolder(service);
    for (const body of typos(newPhone())) expect((await post(caller, body)).statusCode).not.toBe(429);
    for (let i = 0; i < 4; i++) {
      const sent = await post(caller, {
        action: 'wallet-b-send-otp',
        phoneNumber: newPhone(),
        ...newAccount('WALLET-B'),
      });
      expect(sent.statusCode, sent.body).toBe(200);
    }
    const fifth = await post(caller, {
      action: 'wallet-b-send-otp',
      phoneNumber: newPhone(),
      ...newAccount('WALLET-B'),
    });
    expect(fifth.statusCode).toBe(429);
    expect(fifth.json().message).toContain('API key');
  });

  it('a PIN the provider refuses counts: the provider was asked (no PIN guessing past the limit)', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const body = { action: 'wallet-a-send-otp', phoneNumber, pin: '000000', ...newAccount('WALLET-A') };
    for (let i = 0; i < 2; i++) {
      const refused = await post(caller, body);
      expect(refused.statusCode, refused.body).toBe(400);
      expect(refused.json().code).not.toBe('RATE_LIMITED');
    }
    const third = await post(caller, { ...body, pin: '123456' });
    expect(third.statusCode).toBe(429);
    await expect(sandboxOf(service).otp(phoneNumber)).rejects.toThrow(); // no code was ever sent to it
  });

  it('a spent limit answers 429 before the body is checked, and verifying stays open', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const send = { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') };
    const sessions: string[] = [];
    for (let i = 0; i < 2; i++) sessions.push((await post(caller, send)).json().sessionId);
    const typo = await post(caller, { ...send, providerCode: 'WALLET-Z' });
    expect(typo.statusCode).toBe(429);
    const otp = await sandboxOf(service).otp(phoneNumber);
    const verified = await post(caller, { action: 'wallet-c-verify-otp', sessionId: sessions[1], otp });
    expect(verified.statusCode, verified.body).toBe(200);
  });
});
