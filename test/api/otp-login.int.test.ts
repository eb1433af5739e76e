import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { handleCommand } from '../../src/store/commands/handle.ts';
import { user } from '../../src/domain/user.ts';
import { walletLogin, walletLoginStream } from '../../src/domain/wallet-login.ts';
import { keyHolder } from '../support/http.ts';
import { eventually, sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { nextUuid } from '../support/ids.ts';

let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
beforeAll(async () => {
  service = await startTestService();
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());
afterEach(async () => {
  await sandbox.clearFaults();
});

type Caller = Awaited<ReturnType<typeof keyHolder>>;
let phoneSeed = 0;
const newPhone = () => `0812${String(process.pid % 1000).padStart(3, '0')}${String(++phoneSeed).padStart(5, '0')}`;
const newAccount = (providerCode: string) => ({
  providerCode,
  accountName: `${providerCode} utama`,
  intervalMinutes: 60,
});
const post = (caller: Caller, body: Record<string, unknown>) => caller.call('POST', '/api/v1/accounts', body);

async function sendOtp(caller: Caller, body: Record<string, unknown>) {
  const response = await post(caller, body);
  expect(response.statusCode, response.body).toBe(200);
  const json = response.json();
  expect(json).toEqual({ success: true, sessionId: expect.any(String), message: expect.any(String) });
  return json.sessionId as string;
}

async function accountsOf(caller: Caller) {
  return (await caller.call('GET', '/api/v1/accounts?limit=100')).json().data as {
    id: string;
    providerCode: string;
    isActive: boolean;
    phoneNumber: string;
  }[];
}

/** Links a wallet of A, B or C through its whole OTP flow and answers the new account's id. */
async function linkByOtp(caller: Caller, wallet: 'a' | 'b' | 'c', phoneNumber = newPhone()) {
  const providerCode = `WALLET-${wallet.toUpperCase()}`;
  const sessionId = await sendOtp(caller, {
    action: `wallet-${wallet}-send-otp`,
    phoneNumber,
    ...(wallet === 'a' ? { pin: '123456' } : {}),
    ...newAccount(providerCode),
  });
  const otp = await sandbox.otp(phoneNumber);
  const response = await post(caller, {
    action: `wallet-${wallet}-verify-otp`,
    sessionId,
    otp,
    ...(wallet === 'b' ? { pin: '123456' } : {}),
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({ success: true, accountId: expect.any(String) });
  return { accountId: response.json().accountId as string, phoneNumber };
}

describe('e-wallet OTP login: new accounts', () => {
  it.each(['a', 'b', 'c'] as const)(
    'links a WALLET-%s account once the provider confirms the code, active and synchronised',
    async wallet => {
      const caller = await keyHolder(service);
      const { accountId, phoneNumber } = await linkByOtp(caller, wallet);
      const account = (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data;
      expect(account).toMatchObject({
        id: accountId,
        type: 'ewallet',
        providerCode: `WALLET-${wallet.toUpperCase()}`,
        phoneNumber,
        isActive: true,
        intervalMinutes: 60,
      });
      expect(await accountsOf(caller)).toHaveLength(1);
      await service.accountSync.tick();
      await eventually(async () => (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.lastSync);
    },
  );

  it("takes a day of the new account's syncs in points once the login completes, and only once", async () => {
    const caller = await keyHolder(service);
    const points = async () =>
      (await service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: caller.cookie } })).json()
        .points as number;
    await linkByOtp(caller, 'c');
    await service.projections.waitFor(await service.store.headPosition()); // the saga applies the login again: nothing more
    expect(await points()).toBe(1000 - 24); // intervalMinutes 60
  });

  it('sends the code by SMS when asked, and says so', async () => {
    const caller = await keyHolder(service);
    const response = await post(caller, {
      action: 'wallet-b-send-otp',
      phoneNumber: newPhone(),
      verificationMethod: 'SMS',
      ...newAccount('WALLET-B'),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().message).toContain('SMS');
  });

  it('asks for a second OTP for wallet C with a new session id, and refuses the old one at step 3', async () => {
    const caller = await keyHolder(service);
    await sandbox.faults({ providerCode: 'WALLET-C', requireSecondOtp: true });
    const phoneNumber = newPhone();
    const first = await sendOtp(caller, { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') });
    const step2 = await post(caller, {
      action: 'wallet-c-verify-otp',
      sessionId: first,
      otp: await sandbox.otp(phoneNumber),
    });
    expect(step2.statusCode, step2.body).toBe(200);
    expect(step2.json()).toEqual({
      success: false,
      requireSecondOTP: true,
      sessionId: expect.any(String),
      message: expect.any(String),
    });
    const second = step2.json().sessionId as string;
    expect(second).not.toBe(first);
    const secondCode = await sandbox.otp(phoneNumber);

    for (const wrongUse of [
      { action: 'wallet-c-verify-second-otp', sessionId: first, otp: secondCode }, // the step-1 id at step 3
      { action: 'wallet-c-verify-otp', sessionId: first, otp: secondCode }, // the step-1 session, used already
      { action: 'wallet-c-verify-otp', sessionId: second, otp: secondCode }, // the second session at step 2
    ]) {
      const refused = await post(caller, wrongUse);
      expect(refused.statusCode, JSON.stringify(wrongUse)).toBe(400);
      expect(refused.json()).toMatchObject({ status: 'error', code: 'OTP_SESSION_INVALID' });
    }
    expect(await accountsOf(caller)).toHaveLength(0);

    const step3 = await post(caller, { action: 'wallet-c-verify-second-otp', sessionId: second, otp: secondCode });
    expect(step3.statusCode, step3.body).toBe(200);
    expect(step3.json()).toEqual({ success: true, accountId: expect.any(String) });
    expect((await accountsOf(caller)).map(a => a.id)).toEqual([step3.json().accountId]);
  });

  it('links the account even if the request stops right after the login completed (the saga finishes it)', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const sessionId = await sendOtp(caller, { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') });
    // what the request did before it "crashed": the provider confirmed, the login stream recorded it
    const accountId = nextUuid();
    await handleCommand(
      service.deps,
      walletLoginStream(sessionId),
      walletLogin,
      {
        type: 'CompleteLogin',
        newAccountId: accountId,
        providerSession: service.deps.vault.seal({ token: 't', expiresAt: '2099-01-01T00:00:00.000Z' }),
        holderName: 'SITI',
        now: service.clock.now(),
      },
      { actor: 'test', now: service.clock.now() },
    );
    const linked = await eventually(async () => {
      const response = await caller.call('GET', `/api/v1/accounts/${accountId}`);
      return response.statusCode === 200 ? response.json().data : null;
    });
    expect(linked).toMatchObject({ id: accountId, providerCode: 'WALLET-C', phoneNumber, isActive: true });
  });
});

describe('e-wallet OTP login: relogin', () => {
  it('activates a WALLET-A account created with its PIN, with the wallet-a flow and its accountId', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const created = await post(caller, {
      type: 'ewallet',
      providerCode: 'WALLET-A',
      accountName: 'A',
      intervalMinutes: 60,
      phoneNumber,
      pin: '123456',
    });
    expect(created.statusCode, created.body).toBe(200);
    const accountId = created.json().accountId as string;
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.isActive).toBe(false);

    const sessionId = await sendOtp(caller, { action: 'wallet-a-send-otp', phoneNumber, pin: '123456', accountId });
    const verified = await post(caller, {
      action: 'wallet-a-verify-otp',
      sessionId,
      otp: await sandbox.otp(phoneNumber),
      accountId,
    });
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json()).toEqual({ success: true, accountId });

    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.isActive).toBe(true);
    expect(await accountsOf(caller)).toHaveLength(1);
    const refreshed = await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`);
    expect(refreshed.statusCode, refreshed.body).toBe(200);
  });

  it('reactivates an expired wallet C account and resumes its schedule', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkByOtp(caller, 'c');
    await sandbox.faults({ providerCode: 'WALLET-C', expireSessions: true });
    // the refresh finds the provider session gone: the account needs a relogin
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(400);
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.isActive).toBe(false);
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}/refresh`)).statusCode).toBe(400);
    await sandbox.clearFaults();

    const sessionId = await sendOtp(caller, { action: 'wallet-c-send-otp', phoneNumber, accountId });
    const verified = await post(caller, {
      action: 'wallet-c-verify-otp',
      sessionId,
      otp: await sandbox.otp(phoneNumber),
    });
    expect(verified.json()).toEqual({ success: true, accountId });
    expect((await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.isActive).toBe(true);

    service.clock.advance(61 * 60_000);
    const before = (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.lastSync;
    await service.accountSync.tick();
    await eventually(
      async () => (await caller.call('GET', `/api/v1/accounts/${accountId}`)).json().data.lastSync !== before,
    );
    expect(await accountsOf(caller)).toHaveLength(1);
  });

  it('relogs wallet B in with its accountId at both steps', async () => {
    const caller = await keyHolder(service);
    const { accountId, phoneNumber } = await linkByOtp(caller, 'b');
    const sessionId = await sendOtp(caller, { action: 'wallet-b-send-otp', phoneNumber, accountId });
    const otp = await sandbox.otp(phoneNumber);
    const incomplete = await post(caller, { action: 'wallet-b-verify-otp', sessionId, otp, pin: '123456' });
    expect(incomplete.statusCode).toBe(400);
    expect(incomplete.json()).toMatchObject({ code: 'VERIFICATION_INCOMPLETE', errors: [{ path: 'accountId' }] });
    const verified = await post(caller, { action: 'wallet-b-verify-otp', sessionId, otp, pin: '123456', accountId });
    expect(verified.json()).toEqual({ success: true, accountId });
  });

  it("answers 404 for another owner's account and 400 for an account of another wallet or phone", async () => {
    const owner = await keyHolder(service);
    const stranger = await keyHolder(service);
    const { accountId, phoneNumber } = await linkByOtp(owner, 'c');
    const foreign = await post(stranger, { action: 'wallet-c-send-otp', phoneNumber, accountId });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    const otherWallet = await post(owner, { action: 'wallet-b-send-otp', phoneNumber, accountId });
    expect(otherWallet.statusCode).toBe(400);
    const otherPhone = await post(owner, { action: 'wallet-c-send-otp', phoneNumber: newPhone(), accountId });
    expect(otherPhone.statusCode).toBe(400);
  });
});

describe('e-wallet OTP login: error rows', () => {
  it.each([
    [
      'wallet A without phoneNumber',
      { action: 'wallet-a-send-otp', pin: '123456', ...newAccount('WALLET-A') },
      'MISSING_FIELDS',
      'phoneNumber',
    ],
    [
      'wallet A without pin',
      { action: 'wallet-a-send-otp', phoneNumber: '081299990001', ...newAccount('WALLET-A') },
      'MISSING_FIELDS',
      'pin',
    ],
    [
      'wallet B without phoneNumber',
      { action: 'wallet-b-send-otp', ...newAccount('WALLET-B') },
      'MISSING_FIELDS',
      'phoneNumber',
    ],
    [
      'wallet C without phoneNumber',
      { action: 'wallet-c-send-otp', ...newAccount('WALLET-C') },
      'MISSING_FIELDS',
      'phoneNumber',
    ],
    [
      'a new account without accountName',
      { action: 'wallet-b-send-otp', phoneNumber: '081299990002', providerCode: 'WALLET-B', intervalMinutes: 60 },
      'MISSING_FIELDS',
      'accountName',
    ],
    [
      'neither a new account nor an accountId',
      { action: 'wallet-c-send-otp', phoneNumber: '081299990003' },
      'MISSING_FIELDS',
      'providerCode',
    ],
    [
      'a malformed PIN',
      { action: 'wallet-a-send-otp', phoneNumber: '081299990004', pin: '12ab56', ...newAccount('WALLET-A') },
      'VALIDATION_ERROR',
      'pin',
    ],
    [
      'a malformed phone number',
      { action: 'wallet-b-send-otp', phoneNumber: 'call me', ...newAccount('WALLET-B') },
      'VALIDATION_ERROR',
      'phoneNumber',
    ],
    [
      'an unknown verification method',
      {
        action: 'wallet-b-send-otp',
        phoneNumber: '081299990005',
        verificationMethod: 'EMAIL',
        ...newAccount('WALLET-B'),
      },
      'VALIDATION_ERROR',
      'verificationMethod',
    ],
    // 400 here, where creating an account answers 404 PROVIDER_NOT_FOUND
    [
      'an unknown provider',
      { action: 'wallet-b-send-otp', phoneNumber: '081299990006', ...newAccount('WALLET-Z') },
      'UNKNOWN_PROVIDER',
      'providerCode',
    ],
    [
      "another wallet's provider",
      { action: 'wallet-b-send-otp', phoneNumber: '081299990007', ...newAccount('WALLET-C') },
      'VALIDATION_ERROR',
      'providerCode',
    ],
  ])('send OTP answers 400 for %s, and sends nothing', async (_case, body, code, field) => {
    const caller = await keyHolder(service);
    const response = await post(caller, body);
    expect(response.statusCode, response.body).toBe(400);
    const json = response.json();
    expect(json).toMatchObject({ status: 'error', code });
    expect(JSON.stringify(json.errors)).toContain(field);
    expect(await accountsOf(caller)).toHaveLength(0);
  });

  it('send OTP answers 400 when the provider is unavailable (wallets A, B, C) or refuses the login', async () => {
    const caller = await keyHolder(service);
    for (const wallet of ['a', 'b', 'c']) {
      const providerCode = `WALLET-${wallet.toUpperCase()}`;
      await sandbox.faults({ providerCode, outage: true });
      const response = await post(caller, {
        action: `wallet-${wallet}-send-otp`,
        phoneNumber: newPhone(),
        pin: '123456',
        ...newAccount(providerCode),
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    }
    await sandbox.clearFaults();
    await sandbox.faults({ providerCode: 'WALLET-C', refuseLogin: true });
    const refused = await post(caller, {
      action: 'wallet-c-send-otp',
      phoneNumber: newPhone(),
      ...newAccount('WALLET-C'),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'PROVIDER_LOGIN_FAILED' });
    const refusedPin = await post(caller, {
      action: 'wallet-a-send-otp',
      phoneNumber: newPhone(),
      pin: '000000',
      ...newAccount('WALLET-A'),
    });
    expect(refusedPin.statusCode).toBe(400);
    expect(refusedPin.json()).toMatchObject({ code: 'PROVIDER_LOGIN_FAILED' });
  });

  it("send OTP answers 400 when the points do not cover a day of the new account's syncs", async () => {
    const caller = await keyHolder(service);
    await handleCommand(
      service.deps,
      `user-${caller.id}`,
      user,
      { type: 'DebitPoints', points: 800, accountId: nextUuid(), reason: 'account-sync' },
      { actor: 'test', now: service.clock.now() },
    );
    const costly = await post(caller, {
      action: 'wallet-c-send-otp',
      phoneNumber: newPhone(),
      providerCode: 'WALLET-C',
      accountName: 'C',
      intervalMinutes: 5,
    });
    expect(costly.statusCode).toBe(400);
    expect(costly.json()).toMatchObject({
      status: 'error',
      code: 'NOT_ENOUGH_POINTS',
      message: 'Not enough points: 288 needed, 200 available',
    });
    const affordable = await post(caller, {
      action: 'wallet-c-send-otp',
      phoneNumber: newPhone(),
      providerCode: 'WALLET-C',
      accountName: 'C',
      intervalMinutes: 10,
    });
    expect(affordable.statusCode, affordable.body).toBe(200);
  });

  it.each([
    ['wallet-a-verify-otp', { otp: '1234' }, 'sessionId'],
    ['wallet-a-verify-otp', { sessionId: nextUuid() }, 'otp'],
    ['wallet-b-verify-otp', { sessionId: nextUuid(), otp: '123456' }, 'pin'],
    ['wallet-c-verify-otp', { sessionId: nextUuid() }, 'otp'],
    ['wallet-c-verify-second-otp', { otp: '123456' }, 'sessionId'],
  ])('%s answers 400 when the verification data is incomplete (%j)', async (action, body, field) => {
    const caller = await keyHolder(service);
    const response = await post(caller, { action, ...body });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      status: 'error',
      code: 'VERIFICATION_INCOMPLETE',
      errors: [{ path: field }],
    });
  });

  it("verify answers 400 for an unknown session, another owner's, another wallet's and an expired one", async () => {
    const owner = await keyHolder(service);
    const stranger = await keyHolder(service);
    const phoneNumber = newPhone();
    const sessionId = await sendOtp(owner, { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') });
    const otp = await sandbox.otp(phoneNumber);
    const invalid = async (caller: Caller, body: Record<string, unknown>) => {
      const response = await post(caller, body);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({
        status: 'error',
        code: 'OTP_SESSION_INVALID',
        message: expect.stringContaining('step 1'),
      });
    };
    await invalid(owner, { action: 'wallet-c-verify-otp', sessionId: nextUuid(), otp });
    await invalid(stranger, { action: 'wallet-c-verify-otp', sessionId, otp });
    await invalid(owner, { action: 'wallet-b-verify-otp', sessionId, otp, pin: '123456' });
    service.clock.advance(service.config.otp.sessionTtlMinutes * 60_000);
    await invalid(owner, { action: 'wallet-c-verify-otp', sessionId, otp });
    expect(await accountsOf(owner)).toHaveLength(0);
  });

  it('verify answers 400 for a wrong code, locks the session after five, and links nothing', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const sessionId = await sendOtp(caller, {
      action: 'wallet-a-send-otp',
      phoneNumber,
      pin: '123456',
      ...newAccount('WALLET-A'),
    });
    const otp = await sandbox.otp(phoneNumber);
    const wrong = String((Number(otp) + 1) % 10_000).padStart(4, '0');
    for (let left = 4; left >= 0; left--) {
      const response = await post(caller, { action: 'wallet-a-verify-otp', sessionId, otp: wrong });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'OTP_VERIFICATION_FAILED' });
      expect(response.json().message).toContain(left > 0 ? `${left} ${left === 1 ? 'try' : 'tries'} left` : 'locked');
    }
    const late = await post(caller, { action: 'wallet-a-verify-otp', sessionId, otp });
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ code: 'OTP_SESSION_INVALID' });
    expect(await accountsOf(caller)).toHaveLength(0);
  });

  it('verify answers 400 for a malformed code without counting it, and a wrong PIN counts as a failed verification', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const sessionId = await sendOtp(caller, { action: 'wallet-b-send-otp', phoneNumber, ...newAccount('WALLET-B') });
    const otp = await sandbox.otp(phoneNumber);
    const malformed = await post(caller, { action: 'wallet-b-verify-otp', sessionId, otp: '1234', pin: '123456' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'body.otp' }] });
    const wrongPin = await post(caller, { action: 'wallet-b-verify-otp', sessionId, otp, pin: '000000' });
    expect(wrongPin.statusCode).toBe(400);
    expect(wrongPin.json()).toMatchObject({
      code: 'OTP_VERIFICATION_FAILED',
      message: expect.stringContaining('4 tries left'),
    });
    const right = await post(caller, { action: 'wallet-b-verify-otp', sessionId, otp, pin: '123456' });
    expect(right.statusCode, right.body).toBe(200);
  });

  it('a session is used once: the same right code twice links one account', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const sessionId = await sendOtp(caller, { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') });
    const otp = await sandbox.otp(phoneNumber);
    const [first, second] = await Promise.all([
      post(caller, { action: 'wallet-c-verify-otp', sessionId, otp }),
      post(caller, { action: 'wallet-c-verify-otp', sessionId, otp }),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 400]);
    const again = await post(caller, { action: 'wallet-c-verify-otp', sessionId, otp });
    expect(again.json()).toMatchObject({ code: 'OTP_SESSION_INVALID' });
    expect(await accountsOf(caller)).toHaveLength(1);
  });

  it('verify answers 400 while the provider is unavailable or refuses, and the session survives an outage', async () => {
    const caller = await keyHolder(service);
    const phoneNumber = newPhone();
    const sessionId = await sendOtp(caller, { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') });
    const otp = await sandbox.otp(phoneNumber);
    await sandbox.faults({ providerCode: 'WALLET-C', outage: true });
    const down = await post(caller, { action: 'wallet-c-verify-otp', sessionId, otp });
    expect(down.statusCode).toBe(400);
    expect(down.json()).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
    await sandbox.clearFaults();
    await sandbox.faults({ providerCode: 'WALLET-C', refuseLogin: true });
    const refused = await post(caller, { action: 'wallet-c-verify-otp', sessionId, otp });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'OTP_VERIFICATION_FAILED' });
    await sandbox.clearFaults();
    const verified = await post(caller, { action: 'wallet-c-verify-otp', sessionId, otp });
    expect(verified.statusCode, verified.body).toBe(200);
  });

  it('answers 400 for an unknown action and 401 without a key', async () => {
    const caller = await keyHolder(service);
    const unknown = await post(caller, { action: 'wallet-z-send-otp', phoneNumber: newPhone() });
    expect(unknown.statusCode).toBe(400);
    const anonymous = await service.app.inject({
      method: 'POST',
      url: '/api/v1/accounts',
      payload: { action: 'wallet-c-send-otp', phoneNumber: newPhone() },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('e-wallet OTP login: send limits', () => {
  let limited: TestService;
  beforeAll(async () => {
    limited = await startTestService({ OTP_SEND_LIMIT_PER_PHONE: '2', OTP_SEND_LIMIT_PER_KEY: '4' });
  });
  afterAll(async () => limited?.close());

  it('answers 429 after the sends allowed per phone number, whoever asks', async () => {
    const [one, two] = [await keyHolder(limited), await keyHolder(limited)];
    const phoneNumber = newPhone();
    const body = { action: 'wallet-c-send-otp', phoneNumber, ...newAccount('WALLET-C') };
    expect((await post(one, body)).statusCode).toBe(200);
    expect((await post(two, { ...body, phoneNumber: `+62${phoneNumber.slice(1)}` })).statusCode).toBe(200);
    const third = await post(one, body);
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({
      status: 'error',
      code: 'RATE_LIMITED',
      message: expect.stringContaining('phone number'),
    });
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post(one, { ...body, phoneNumber: newPhone() })).statusCode).toBe(200);
  });

  it('answers 429 after the sends allowed per API key, and verifying is not limited', async () => {
    const caller = await keyHolder(limited);
    const phones = [newPhone(), newPhone(), newPhone(), newPhone()];
    const sessions: string[] = [];
    for (const phoneNumber of phones) {
      const response = await post(caller, { action: 'wallet-b-send-otp', phoneNumber, ...newAccount('WALLET-B') });
      expect(response.statusCode).toBe(200);
      sessions.push(response.json().sessionId);
    }
    const fifth = await post(caller, {
      action: 'wallet-b-send-otp',
      phoneNumber: newPhone(),
      ...newAccount('WALLET-B'),
    });
    expect(fifth.statusCode).toBe(429);
    expect(fifth.json().message).toContain('API key');
    const otherKey = await keyHolder(limited);
    expect(
      (await post(otherKey, { action: 'wallet-b-send-otp', phoneNumber: newPhone(), ...newAccount('WALLET-B') }))
        .statusCode,
    ).toBe(200);
    const verify = await post(caller, {
      action: 'wallet-b-verify-otp',
      sessionId: sessions[3],
      otp: await sandboxOf(limited).otp(phones[3]!),
      pin: '123456',
    });
    expect(verify.statusCode, verify.body).toBe(200);
  });
});
