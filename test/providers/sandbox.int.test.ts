import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectStatus, sandboxHarness, type SandboxHarness } from './sandbox-harness.ts';

/** Logging in to the sandbox providers: bank passwords, wallet OTPs and PINs, the conventions of its test mode. */
let sandbox: SandboxHarness;
beforeEach(async () => {
  sandbox = await sandboxHarness();
});
afterEach(async () => sandbox.close());

const minutes = (n: number) => n * 60_000;

describe('the sandbox server', () => {
  it('answers health and lists the providers it plays', async () => {
    expect((await sandbox.get('/health')).json()).toEqual({ status: 'ok' });
    const providers = (await sandbox.get('/sandbox/providers')).json().providers as {
      providerCode: string;
      type: string;
    }[];
    expect(providers.filter(p => p.type === 'bank').map(p => p.providerCode)).toEqual([
      'BANK-BCA',
      'BANK-BRI',
      'BANK-MANDIRI',
      'BANK-BNI',
    ]);
    expect(providers.filter(p => p.type === 'ewallet').map(p => p.providerCode)).toEqual([
      'WALLET-A',
      'WALLET-A-BUSINESS',
      'WALLET-B',
      'WALLET-C',
      'WALLET-D',
      'WALLET-E',
    ]);
  });

  it('answers its control routes (OTP codes, credits, faults) only on loopback, and its provider routes to anyone', async () => {
    const from = (remoteAddress: string, method: 'GET' | 'POST', url: string, payload?: object) =>
      sandbox.app.inject({ method, url, remoteAddress, ...(payload ? { payload } : {}) });
    const credit = { providerCode: 'BANK-BCA', accountRef: '1234567890', type: 'CREDIT', amount: 5000 };
    for (const remote of ['10.0.0.7', '172.30.26.5', '::ffff:192.168.1.2', '2001:db8::1']) {
      expectStatus(await from(remote, 'GET', '/sandbox/otp?phone=0811'), 403, 'CONTROL_NOT_ALLOWED');
      expectStatus(await from(remote, 'POST', '/sandbox/transactions', credit), 403, 'CONTROL_NOT_ALLOWED');
      expectStatus(await from(remote, 'POST', '/sandbox/faults', { outage: true }), 403, 'CONTROL_NOT_ALLOWED');
      expect((await from(remote, 'GET', '/health')).statusCode).toBe(200);
      expect((await from(remote, 'GET', '/providers/WALLET-A/banks')).statusCode).not.toBe(403);
    }
    expect((await sandbox.get('/sandbox/faults')).json()).toEqual({
      faults: expect.not.objectContaining({ outage: true }),
    });
    for (const remote of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect((await from(remote, 'GET', '/sandbox/providers')).statusCode, remote).toBe(200);
  });

  it('answers unknown routes and providers with the provider error shape', async () => {
    expectStatus(await sandbox.get('/nowhere'), 404, 'NOT_FOUND');
    expectStatus(
      await sandbox.loginBank('BANK-NOPE', { username: 'u', password: 'p', accountNumber: '1234567890' }),
      404,
      'UNKNOWN_PROVIDER',
    );
    expectStatus(
      await sandbox.post('/providers/WALLET-NOPE/otp', { phoneNumber: '081200000000' }),
      404,
      'UNKNOWN_PROVIDER',
    );
  });
});

describe('bank login', () => {
  const body = { username: 'budi', password: 'rahasia', accountNumber: '1234567890' };

  it('takes any username; its first good password is kept and checked from then on', async () => {
    const first = await sandbox.loginBank('BANK-BCA', body);
    expectStatus(first, 200);
    expect(first.json()).toMatchObject({
      sessionToken: expect.any(String),
      expiresAt: new Date(sandbox.clock.now().getTime() + 24 * 3_600_000).toISOString(),
      account: { accountRef: '1234567890', holderName: expect.any(String) },
    });
    expectStatus(await sandbox.loginBank('BANK-BCA', body), 200);
    expectStatus(await sandbox.loginBank('BANK-BCA', { ...body, password: 'lain' }), 401, 'INVALID_CREDENTIALS');
    // the same username at another bank is another login
    expectStatus(await sandbox.loginBank('BANK-BRI', { ...body, password: 'lain' }), 200);
  });

  it('always refuses the password sandbox-fail, and a refusal fixes nothing', async () => {
    expectStatus(
      await sandbox.loginBank('BANK-BNI', { ...body, password: 'sandbox-fail' }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectStatus(
      await sandbox.loginBank('BANK-BNI', { ...body, password: 'sandbox-fail' }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectStatus(await sandbox.loginBank('BANK-BNI', { ...body, password: 'yang-benar' }), 200);
  });

  it('answers 400 for a body that is not a login', async () => {
    expectStatus(
      await sandbox.post('/providers/BANK-BCA/login', { username: 'budi', accountNumber: '1234567890' }),
      400,
      'INVALID_REQUEST',
    );
    expectStatus(
      await sandbox.post('/providers/BANK-BCA/login', { ...body, accountNumber: 'abc' }),
      400,
      'INVALID_REQUEST',
    );
    expectStatus(
      await sandbox.post('/providers/BANK-BCA/otp', { phoneNumber: '081200000000' }),
      400,
      'OTP_NOT_SUPPORTED',
    );
  });
});

describe('wallet login', () => {
  it('WALLET-A: a 6-digit PIN at step 1, then a 4-digit OTP from the inbox', async () => {
    const phoneNumber = '081211110001';
    expectStatus(await sandbox.post('/providers/WALLET-A/otp', { phoneNumber }), 400, 'PIN_REQUIRED');
    expectStatus(await sandbox.post('/providers/WALLET-A/otp', { phoneNumber, pin: '12345' }), 400, 'PIN_REQUIRED');
    expectStatus(await sandbox.post('/providers/WALLET-A/otp', { phoneNumber, pin: '000000' }), 401, 'LOGIN_REFUSED');
    const sent = await sandbox.post('/providers/WALLET-A/otp', { phoneNumber, pin: '123456', channel: 'SMS' });
    expectStatus(sent, 200);
    expect(sent.json()).toMatchObject({
      otpLength: 4,
      expiresAt: new Date(sandbox.clock.now().getTime() + minutes(5)).toISOString(),
    });
    const inbox = (await sandbox.get(`/sandbox/otp?phone=${phoneNumber}`)).json();
    expect(inbox).toMatchObject({
      code: expect.stringMatching(/^[0-9]{4}$/),
      providerCode: 'WALLET-A',
      channel: 'SMS',
    });
    const verified = await sandbox.post('/providers/WALLET-A/otp/verify', {
      challengeId: sent.json().challengeId,
      otp: inbox.code,
    });
    expectStatus(verified, 200);
    expect(verified.json().account.accountRef).toBe(phoneNumber);
  });

  it('WALLET-B: a 6-digit OTP and a 6-digit PIN at verify; PIN 000000 refused', async () => {
    const phoneNumber = '081211110002';
    const sent = await sandbox.post('/providers/WALLET-B/otp', { phoneNumber });
    expect(sent.json().otpLength).toBe(6);
    const otp = await sandbox.otpOf(phoneNumber);
    expect(otp).toMatch(/^[0-9]{6}$/);
    const verify = (pin?: string) =>
      sandbox.post('/providers/WALLET-B/otp/verify', { challengeId: sent.json().challengeId, otp, pin });
    expectStatus(await verify(), 400, 'PIN_REQUIRED');
    expectStatus(await verify('000000'), 401, 'LOGIN_REFUSED');
    expectStatus(await verify('654321'), 200);
  });

  it('WALLET-C: a second OTP when demanded, verified on the new challenge with the new code', async () => {
    const phoneNumber = '081211110003';
    expectStatus(await sandbox.faults({ providerCode: 'WALLET-C', requireSecondOtp: true }), 200);
    const sent = await sandbox.post('/providers/WALLET-C/otp', { phoneNumber });
    const firstCode = await sandbox.otpOf(phoneNumber);
    const step2 = await sandbox.post('/providers/WALLET-C/otp/verify', {
      challengeId: sent.json().challengeId,
      otp: firstCode,
    });
    expectStatus(step2, 200);
    expect(step2.json()).toEqual({
      secondOtpRequired: true,
      challengeId: expect.any(String),
      expiresAt: expect.any(String),
    });
    const secondId = step2.json().challengeId as string;
    expect(secondId).not.toBe(sent.json().challengeId);
    const secondCode = await sandbox.otpOf(phoneNumber);
    // the first challenge is spent; the second wants the second code
    expectStatus(
      await sandbox.post('/providers/WALLET-C/otp/verify', { challengeId: sent.json().challengeId, otp: firstCode }),
      404,
      'CHALLENGE_NOT_FOUND',
    );
    if (secondCode !== firstCode)
      expectStatus(
        await sandbox.post('/providers/WALLET-C/otp/verify', { challengeId: secondId, otp: firstCode }),
        401,
        'WRONG_OTP',
      );
    const step3 = await sandbox.post('/providers/WALLET-C/otp/verify', { challengeId: secondId, otp: secondCode });
    expectStatus(step3, 200);
    expect(step3.json().account.accountRef).toBe(phoneNumber);
  });

  it('WALLET-C without the fault logs in with one OTP; requireSecondOtp is refused for other wallets', async () => {
    expect((await sandbox.loginWallet('WALLET-C', '081211110004')).sessionToken).toEqual(expect.any(String));
    expectStatus(await sandbox.faults({ providerCode: 'WALLET-D', requireSecondOtp: true }), 400, 'INVALID_FAULT');
  });

  it('WALLET-A-BUSINESS, D and E take a 6-digit OTP, or log in directly by phone number', async () => {
    for (const providerCode of ['WALLET-A-BUSINESS', 'WALLET-D', 'WALLET-E']) {
      const sent = await sandbox.post(`/providers/${providerCode}/otp`, { phoneNumber: '081211110005' });
      expect(sent.json().otpLength).toBe(6);
      expect((await sandbox.loginWallet(providerCode, '081211110005')).account.accountRef).toBe('081211110005');
      const direct = await sandbox.post(`/providers/${providerCode}/login`, { phoneNumber: '081211110006' });
      expectStatus(direct, 200);
      expect(direct.json().account.accountRef).toBe('081211110006');
    }
    expectStatus(await sandbox.post('/providers/WALLET-A/login', { phoneNumber: '081211110006' }), 400, 'OTP_REQUIRED');
  });

  it('locks a challenge after 5 wrong codes, even for the right code after', async () => {
    const phoneNumber = '081211110007';
    const sent = await sandbox.post('/providers/WALLET-D/otp', { phoneNumber });
    const code = await sandbox.otpOf(phoneNumber);
    const wrong = code === '000000' ? '000001' : '000000';
    const verify = (otp: string) =>
      sandbox.post('/providers/WALLET-D/otp/verify', { challengeId: sent.json().challengeId, otp });
    for (let tries = 1; tries <= 5; tries++) {
      const response = await verify(wrong);
      expectStatus(response, 401, 'WRONG_OTP');
      expect(response.json().message).toContain(`${5 - tries} tries left`);
    }
    expectStatus(await verify(code), 410, 'CHALLENGE_LOCKED');
  });

  it('expires a challenge after otpTtlMs on the clock, and a challenge is usable once', async () => {
    const phoneNumber = '081211110008';
    const late = await sandbox.post('/providers/WALLET-E/otp', { phoneNumber });
    const lateCode = await sandbox.otpOf(phoneNumber);
    sandbox.clock.advance(minutes(5));
    expectStatus(
      await sandbox.post('/providers/WALLET-E/otp/verify', { challengeId: late.json().challengeId, otp: lateCode }),
      410,
      'CHALLENGE_EXPIRED',
    );

    const sent = await sandbox.post('/providers/WALLET-E/otp', { phoneNumber });
    const code = await sandbox.otpOf(phoneNumber);
    sandbox.clock.advance(minutes(5) - 1);
    const verify = () =>
      sandbox.post('/providers/WALLET-E/otp/verify', { challengeId: sent.json().challengeId, otp: code });
    expectStatus(await verify(), 200);
    expectStatus(await verify(), 404, 'CHALLENGE_NOT_FOUND');
    expectStatus(
      await sandbox.post('/providers/WALLET-E/otp/verify', { challengeId: 'nope', otp: code }),
      404,
      'CHALLENGE_NOT_FOUND',
    );
  });

  it('takes its OTP lifetime from the options, and a challenge belongs to its provider', async () => {
    const short = await sandboxHarness({ otpTtlMs: 1000 });
    try {
      const sent = await short.post('/providers/WALLET-D/otp', { phoneNumber: '081211110009' });
      expect(sent.json().expiresAt).toBe(new Date(short.clock.now().getTime() + 1000).toISOString());
      const code = await short.otpOf('081211110009');
      expectStatus(
        await short.post('/providers/WALLET-E/otp/verify', { challengeId: sent.json().challengeId, otp: code }),
        404,
        'CHALLENGE_NOT_FOUND',
      );
      short.clock.advance(1000);
      expectStatus(
        await short.post('/providers/WALLET-D/otp/verify', { challengeId: sent.json().challengeId, otp: code }),
        410,
        'CHALLENGE_EXPIRED',
      );
    } finally {
      await short.close();
    }
  });

  it('answers 404 from the inbox of a phone that got no OTP', async () => {
    expectStatus(await sandbox.get('/sandbox/otp?phone=089999999999'), 404, 'NO_OTP');
  });
});
