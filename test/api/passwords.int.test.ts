import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { query } from '../../src/db/pool.ts';
import { registerUser, sessionCookie } from '../support/http.ts';
import { pageBrowser } from '../support/pages.ts';
import { runCli } from '../support/process.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Choosing a password (registering, changing it) and changing it while signed in. */
let service: TestService;
const logged: string[] = [];
beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(chunk.toString());
      done();
    },
  });
  service = await startTestService({}, { log: createLogger('debug', sink) });
});
afterAll(async () => service?.close());

const countUsers = async () =>
  Number((await query(service.pool, 'CountUsers', 'select count(*) as n from users')).rows[0]!.n);
const register = (email: string, password: string) =>
  service.app.inject({ method: 'POST', url: '/api/auth/register', payload: { name: 'Budi', email, password } });
const login = (email: string, password: string) =>
  service.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email, password } });
const me = (cookie: string) =>
  service.app.inject({ method: 'GET', url: '/api/auth/me', cookies: { svc_token: cookie } });
const changePassword = (cookie: string, payload: unknown) =>
  service.app.inject({
    method: 'POST',
    url: '/api/auth/password',
    cookies: { svc_token: cookie },
    payload: payload as never,
  });

describe('registering with a common password', () => {
  it.each(['12345678', 'password123', 'PassWord123', 'bismillah', 'iloveyou'])(
    'refuses %s with 400 in Indonesian, and creates nobody',
    async password => {
      const before = await countUsers();
      const refused = await register(`umum-${password.toLowerCase()}@example.com`, password);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ ok: false, message: 'Password terlalu umum, pilih yang lain' });
      expect(await countUsers()).toBe(before);
    },
  );

  it('keeps the 8-character minimum, and takes an uncommon password', async () => {
    expect((await register('pendek@example.com', 'Ab3$xyz')).json()).toEqual({
      ok: false,
      message: 'Password minimal 8 karakter',
    });
    expect((await register('jarang@example.com', 'kuda-lumping-77')).statusCode).toBe(201);
  });

  it('refuses it on the registration page too, with the form shown again', async () => {
    const browser = pageBrowser(service);
    await browser.get('/register');
    const page = await browser.post('/register', {
      name: 'Siti',
      email: 'siti-umum@example.com',
      password: 'qwerty123',
    });
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain('Password terlalu umum, pilih yang lain');
    expect(page.body).toContain('siti-umum@example.com');
  });
});

describe('POST /api/auth/password', () => {
  it('changes the password, keeps this session and ends the others, and records the new hash only', async () => {
    const user = await registerUser(service);
    const otherDevice = sessionCookie(await login(user.email, user.password));
    logged.length = 0;
    const changed = await changePassword(user.cookie, {
      currentPassword: user.password,
      newPassword: 'kebun-raya-bogor-9',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toEqual({ ok: true });

    expect((await me(user.cookie)).statusCode).toBe(200);
    expect((await me(otherDevice)).statusCode).toBe(401);
    expect((await login(user.email, user.password)).statusCode).toBe(401);
    expect((await login(user.email, 'kebun-raya-bogor-9')).statusCode).toBe(200);

    const events = await service.store.readStream(`user-${user.id}`);
    const change = events.find(e => e.type === 'PasswordChanged')!;
    expect(change.data).toMatchObject({
      userId: user.id,
      reason: 'changed',
      passwordHash: expect.stringMatching(/^\$argon2id\$/),
    });
    expect(JSON.stringify(events.map(e => e.data))).not.toContain('kebun-raya-bogor-9');
    expect(logged.join('')).not.toMatch(/kebun-raya-bogor-9|\$argon2id\$/);
  });

  it('refuses a new password by the rules of registration, and changes nothing', async () => {
    const user = await registerUser(service);
    const cases: [unknown, string][] = [
      [{ currentPassword: user.password, newPassword: '12345678' }, 'Password terlalu umum, pilih yang lain'],
      [{ currentPassword: user.password, newPassword: 'pendek' }, 'Password minimal 8 karakter'],
      [{ currentPassword: user.password, newPassword: 'x'.repeat(129) }, 'Password maksimal 128 karakter'],
      [{ currentPassword: user.password }, 'Password saat ini dan password baru wajib diisi'],
      [{}, 'Password saat ini dan password baru wajib diisi'],
    ];
    for (const [payload, message] of cases) {
      const refused = await changePassword(user.cookie, payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(refused.json()).toEqual({ ok: false, message });
    }
    expect((await login(user.email, user.password)).statusCode).toBe(200);
  });

  it('answers 401 to a wrong current password, and slows a session guessing it down as a stranger is', async () => {
    const user = await registerUser(service);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const refused = await changePassword(user.cookie, {
        currentPassword: `tebakan-${i}`,
        newPassword: 'kebun-raya-bogor-9',
      });
      statuses.push(refused.statusCode);
      if (refused.statusCode === 401) expect(refused.json()).toEqual({ ok: false, message: 'Password saat ini salah' });
      else expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 429]);
    expect((await me(user.cookie)).statusCode).toBe(200); // nothing changed, nobody signed out
  });

  it('answers 401 without a session', async () => {
    const refused = await service.app.inject({
      method: 'POST',
      url: '/api/auth/password',
      payload: { currentPassword: 'a', newPassword: 'kebun-raya-bogor-9' },
    });
    expect(refused.statusCode).toBe(401);
  });
});

describe('the password page', () => {
  it('changes the password from the dashboard, and says why it refuses', async () => {
    const user = await registerUser(service);
    const browser = pageBrowser(service);
    await browser.get('/login');
    await browser.post('/login', { email: user.email, password: user.password });
    const page = await browser.get('/dashboard/password');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Ganti password');

    const common = await browser.post('/dashboard/password', {
      currentPassword: user.password,
      newPassword: 'password1',
      repeatPassword: 'password1',
    });
    expect(common.statusCode).toBe(400);
    expect(common.body).toContain('Password terlalu umum, pilih yang lain');
    const mismatch = await browser.post('/dashboard/password', {
      currentPassword: user.password,
      newPassword: 'kebun-raya-bogor-9',
      repeatPassword: 'kebun-raya-bogor-8',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain('Ulangan password baru tidak sama');
    const wrong = await browser.post('/dashboard/password', {
      currentPassword: 'bukan-ini',
      newPassword: 'kebun-raya-bogor-9',
      repeatPassword: 'kebun-raya-bogor-9',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Password saat ini salah');
    const forged = await browser.postBare('/dashboard/password', {
      currentPassword: user.password,
      newPassword: 'kebun-raya-bogor-9',
      repeatPassword: 'kebun-raya-bogor-9',
    });
    expect(forged.statusCode).toBe(403);

    const done = await browser.post('/dashboard/password', {
      currentPassword: user.password,
      newPassword: 'kebun-raya-bogor-9',
      repeatPassword: 'kebun-raya-bogor-9',
    });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard/password?done=changed');
    expect((await browser.get('/dashboard/password?done=changed')).body).toContain('Password diganti');
    expect((await me(user.cookie)).statusCode).toBe(401); // the session of registration, another device, is over
    expect((await login(user.email, 'kebun-raya-bogor-9')).statusCode).toBe(200);
  });
});

describe('npm run cli -- reset-password', () => {
  const cli = (args: string[]) => runCli(service, args);

  it('prints a temporary password once, ends every session of the user and records the reset', async () => {
    const user = await registerUser(service);
    const otherDevice = sessionCookie(await login(user.email, user.password));
    const reset = await cli(['reset-password', user.email.toUpperCase()]);
    expect(reset.code, reset.err).toBe(0);
    const printed = JSON.parse(reset.out) as { userId: string; email: string; temporaryPassword: string };
    expect(printed).toEqual({
      userId: user.id,
      email: user.email,
      temporaryPassword: expect.stringMatching(/^[\w-]{16}$/),
    });
    await service.projections.waitFor(await service.store.headPosition());

    expect((await me(user.cookie)).statusCode).toBe(401);
    expect((await me(otherDevice)).statusCode).toBe(401);
    expect((await login(user.email, user.password)).statusCode).toBe(401);
    expect((await login(user.email, printed.temporaryPassword)).statusCode).toBe(200);
    const events = await service.store.readStream(`user-${user.id}`);
    const recorded = events.find(e => e.type === 'PasswordChanged')!;
    expect(recorded.data).toMatchObject({ reason: 'reset', passwordHash: expect.stringMatching(/^\$argon2id\$/) });
    expect(recorded.metadata.actor).toBe('operator:cli');
    expect(JSON.stringify(events.map(e => e.data))).not.toContain(printed.temporaryPassword);
  });

  it('says so when no user has the email, and how it is used without one', async () => {
    const unknown = await cli(['reset-password', 'nobody-here@example.com']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('No user has the email nobody-here@example.com');
    expect(unknown.out).toBe('');
    expect((await cli(['reset-password'])).code).toBe(2);
  });

  it('refuses a common password for a new admin', async () => {
    const refused = await cli([
      'create-admin',
      '--name',
      'Admin',
      '--email',
      'admin-umum@example.com',
      '--password',
      'admin123',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('Password terlalu umum, pilih yang lain');
  });
});
