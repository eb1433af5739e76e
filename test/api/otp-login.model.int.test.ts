import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountStream } from '../../src/domain/account.ts';
import { keyHolder } from '../support/http.ts';
import { sandboxOf } from '../support/sandbox.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Model test of the OTP logins: random sequences of send / verify / second-verify calls, with right and wrong
 * codes, for new accounts and relogins of wallets A, B and C, while wallet C may demand a second OTP. After
 * every step the accounts the owner has, and the restores each account went through, are what the model says:
 * an account is linked or reactivated exactly when a flow really completed, and never twice.
 */
let service: TestService;
let sandbox: ReturnType<typeof sandboxOf>;
beforeAll(async () => {
  service = await startTestService({ OTP_SEND_LIMIT_PER_PHONE: '1000', OTP_SEND_LIMIT_PER_KEY: '100000' });
  sandbox = sandboxOf(service);
});
afterAll(async () => service?.close());

type Wallet = 'a' | 'b' | 'c';
type Caller = Awaited<ReturnType<typeof keyHolder>>;
type Session = {
  id: string;
  wallet: Wallet;
  step: 'first' | 'second';
  code: string;
  open: boolean;
  wrong: number;
  relogin: string | null;
  phone: string;
};
type Model = {
  sessions: Session[];
  accounts: { id: string; wallet: Wallet; phone: string }[];
  restores: Map<string, number>;
  secondOtp: boolean;
};
type Real = { caller: Caller };

let phoneSeed = 0;
const otpLength = (wallet: Wallet) => (wallet === 'a' ? 4 : 6);
const wrongCode = (code: string) => String((Number(code) + 1) % 10 ** code.length).padStart(code.length, '0');
const post = (real: Real, body: Record<string, unknown>) => real.caller.call('POST', '/api/v1/accounts', body);

async function restoresOf(accountId: string): Promise<number> {
  return (await service.store.readStream(accountStream(accountId))).filter(e => e.type === 'ProviderSessionRestored')
    .length;
}

/** What the service holds must be what the model says. */
async function agree(model: Model, real: Real) {
  const listed = (await real.caller.call('GET', '/api/v1/accounts?limit=100')).json().data as {
    id: string;
    isActive: boolean;
  }[];
  expect(listed.map(a => a.id).sort()).toEqual(model.accounts.map(a => a.id).sort());
  for (const a of model.accounts)
    expect(await restoresOf(a.id), `restores of ${a.id}`).toBe(model.restores.get(a.id) ?? 0);
}

class Send implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly wallet: Wallet,
    readonly reloginPick: number | null,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const candidates = model.accounts.filter(a => a.wallet === this.wallet);
    const target =
      this.reloginPick === null || candidates.length === 0 ? null : candidates[this.reloginPick % candidates.length]!;
    const phone =
      target?.phone ?? `0813${String(process.pid % 1000).padStart(3, '0')}${String(++phoneSeed).padStart(6, '0')}`;
    const providerCode = `WALLET-${this.wallet.toUpperCase()}`;
    const response = await post(real, {
      action: `wallet-${this.wallet}-send-otp`,
      phoneNumber: phone,
      ...(this.wallet === 'a' ? { pin: '123456' } : {}),
      ...(target ? { accountId: target.id } : { providerCode, accountName: providerCode, intervalMinutes: 1440 }),
    });
    expect(response.statusCode, response.body).toBe(200);
    const code = await sandbox.otp(phone);
    expect(code).toHaveLength(otpLength(this.wallet));
    model.sessions.push({
      id: response.json().sessionId,
      wallet: this.wallet,
      step: 'first',
      code,
      open: true,
      wrong: 0,
      relogin: target?.id ?? null,
      phone,
    });
    await agree(model, real);
  }
  toString = () => `send(${this.wallet}${this.reloginPick === null ? '' : `, relogin ${this.reloginPick}`})`;
}

class Verify implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly right: boolean,
    readonly asStep: 'own' | 'first' | 'second',
  ) {}
  check = (model: Readonly<Model>) => model.sessions.length > 0;
  async run(model: Model, real: Real) {
    const s = model.sessions[this.pick % model.sessions.length]!;
    const step = this.asStep === 'own' ? s.step : this.asStep;
    if (step === 'second' && s.wallet !== 'c') return; // only wallet C has a step 3
    const action = step === 'second' ? 'wallet-c-verify-second-otp' : `wallet-${s.wallet}-verify-otp`;
    const response = await post(real, {
      action,
      sessionId: s.id,
      otp: this.right ? s.code : wrongCode(s.code),
      ...(s.wallet === 'b' ? { pin: '123456' } : {}),
      ...(s.relogin && step === 'first' ? { accountId: s.relogin } : {}),
    });

    if (!s.open || step !== s.step) {
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().code).toBe('OTP_SESSION_INVALID');
    } else if (!this.right) {
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().code).toBe('OTP_VERIFICATION_FAILED');
      s.wrong++;
      if (s.wrong >= 5) s.open = false;
    } else if (s.wallet === 'c' && s.step === 'first' && model.secondOtp) {
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ success: false, requireSecondOTP: true });
      s.open = false;
      model.sessions.push({
        ...s,
        id: body.sessionId,
        step: 'second',
        code: await sandbox.otp(s.phone),
        open: true,
        wrong: 0,
      });
    } else {
      expect(response.statusCode, response.body).toBe(200);
      const { accountId } = response.json();
      s.open = false;
      if (s.relogin) {
        expect(accountId).toBe(s.relogin);
        model.restores.set(accountId, (model.restores.get(accountId) ?? 0) + 1);
      } else {
        expect(model.accounts.some(a => a.id === accountId)).toBe(false);
        model.accounts.push({ id: accountId, wallet: s.wallet, phone: s.phone });
      }
    }
    await agree(model, real);
  }
  toString = () => `verify(#${this.pick}, ${this.right ? 'right' : 'wrong'}, ${this.asStep})`;
}

class SecondOtp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly on: boolean) {}
  check = () => true;
  async run(model: Model) {
    if (this.on) await sandbox.faults({ providerCode: 'WALLET-C', requireSecondOtp: true });
    else await sandbox.clearFaults();
    model.secondOtp = this.on;
  }
  toString = () => `secondOtp(${this.on})`;
}

const commands = [
  fc.tuple(fc.constantFrom<Wallet>('a', 'b', 'c'), fc.option(fc.nat(3), { nil: null })).map(([w, r]) => new Send(w, r)),
  fc
    .tuple(
      fc.nat(20),
      fc.boolean(),
      fc.constantFrom('own', 'own', 'own', 'first', 'second') as fc.Arbitrary<'own' | 'first' | 'second'>,
    )
    .map(([p, r, s]) => new Verify(p, r, s)),
  fc.boolean().map(on => new SecondOtp(on)),
];

describe('e-wallet OTP login model', () => {
  it('links or reactivates an account exactly when a flow completed, never twice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 14 }), async cmds => {
        await sandbox.clearFaults();
        const real: Real = { caller: await keyHolder(service) };
        const model: Model = { sessions: [], accounts: [], restores: new Map(), secondOtp: false };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        // the saga applies every completed login again: still nothing twice
        const head = await service.store.headPosition();
        expect(await service.sagas.waitFor(head, 20_000)).toBe(true);
        expect(await service.projections.waitFor(await service.store.headPosition(), 20_000)).toBe(true);
        await agree(model, real);
      }),
      { numRuns: 12 },
    );
  });
});
