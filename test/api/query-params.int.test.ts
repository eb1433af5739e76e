import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedMerchant, signedInAdminBrowser, type Admin } from '../support/gateway.ts';
import { keyCallerOf, signedInBrowser, textOf, type PageBrowser } from '../support/pages.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * Every query parameter of the pages, their CSV exports and the JSON routes, sent malformed: each is a 400 (the page
 * with its refusal in Indonesian, the CSV's error page, the JSON envelope), never a 500 or a silent 200; the valid
 * edges still answer 200. Dates are real calendar dates in the years 2000 to 2100, pages 1 to 1,000,000, sizes 1 to
 * 100, choices as declared.
 */
type Kind = 'date' | 'page' | 'limit' | 'revision' | 'choice';
type Surface = 'page' | 'csv' | 'json';
type Route = {
  surface: Surface;
  path: string;
  /** what the route needs besides the parameter tried (a period's other date, a stream id) */
  base: Record<string, string>;
  params: Record<string, Kind>;
  /** a valid value of each choice parameter */
  choices?: Record<string, string>;
  /** the largest page size, where it is not the interface's 100 */
  maxLimit?: number;
  send: (url: string) => Promise<LightMyRequestResponse>;
};

const malformed: Record<Kind, string[]> = {
  date: ['2026-13-45', '2026-02-30', '0415-01-01', '1999-12-31', '2101-01-01', 'abc', '2026-1-5', '20260101'],
  page: ['99999999999999999999', '1e308', '-1', '0', 'abc', '1.5', '1000001'],
  limit: ['99999999999999999999', '1e308', '-1', '0', 'abc'],
  revision: ['99999999999999999999', '1e308', '-1', 'abc', '1.5'],
  choice: ['BOGUS', 'pending; drop table users'],
};
const valid: Record<Exclude<Kind, 'choice'>, string[]> = {
  date: ['2000-01-01', '2100-12-31', '2024-02-29'],
  page: ['1', '1000000'],
  limit: ['1'],
  revision: ['0', String(Number.MAX_SAFE_INTEGER)],
};
/** What a page's refusal of each kind names, in its words. */
const pageWords: Record<Exclude<Kind, 'limit'>, RegExp> = {
  date: /tanggal YYYY-MM-DD yang ada di kalender, tahun 2000 sampai 2100/,
  page: /halaman 1 sampai 1\.000\.000/,
  revision: /revisi/,
  choice: /pilih salah satu dari daftar/,
};

let service: TestService;
let routes: Route[];

beforeAll(async () => {
  service = await startTestService({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const { browser } = await signedInBrowser(service);
  const caller = await keyCallerOf(service, browser);
  const hook = await caller.call('POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/in' });
  if (hook.statusCode !== 200) throw new Error(`webhook: ${hook.statusCode} ${hook.body}`);
  const endpointId = hook.json().data.id as string;
  const { admin, browser: adminBrowser } = await signedInAdminBrowser(service);
  const merchant = await approvedMerchant(service, admin);
  routes = routesOf(browser, caller.call, adminBrowser, admin, merchant.call, endpointId);
}, 120_000);
afterAll(async () => service?.close());

function routesOf(
  browser: PageBrowser,
  call: (method: 'GET', url: string) => Promise<LightMyRequestResponse>,
  adminBrowser: PageBrowser,
  admin: Admin,
  merchantCall: (method: 'GET', url: string) => Promise<LightMyRequestResponse>,
  endpointId: string,
): Route[] {
  const asUser = (url: string) => browser.get(url);
  const asAdmin = (url: string) => adminBrowser.get(url);
  const withKey = (url: string) => call('GET', url);
  const withSession = (url: string) =>
    service.app.inject({ method: 'GET', url, cookies: Object.fromEntries(browser.jar) });
  const adminSession = (url: string) => admin.session('GET', url);
  const period = { from: '2026-01-01', to: '2026-01-31' };
  const dates = { from: 'date', to: 'date' } as const;
  return [
    {
      surface: 'page',
      path: '/dashboard/mutations',
      base: {},
      params: { ...dates, page: 'page', accountType: 'choice', type: 'choice' },
      choices: { accountType: 'wallet', type: 'CREDIT' },
      send: asUser,
    },
    {
      surface: 'csv',
      path: '/dashboard/mutations.csv',
      base: {},
      params: { ...dates, accountType: 'choice', type: 'choice' },
      choices: { accountType: 'bank', type: 'DEBIT' },
      send: asUser,
    },
    {
      surface: 'page',
      path: '/dashboard/payments',
      base: {},
      params: { ...dates, page: 'page', status: 'choice', type: 'choice' },
      choices: { status: 'EXPIRED', type: 'QRIS-DYNAMIC' },
      send: asUser,
    },
    {
      surface: 'page',
      path: '/dashboard/gateway',
      base: {},
      params: { ...dates, page: 'page', type: 'choice' },
      choices: { type: 'SETTLEMENT' },
      send: asUser,
    },
    {
      surface: 'page',
      path: '/dashboard/gateway/settlements',
      base: {},
      params: { ...dates, page: 'page' },
      send: asUser,
    },
    {
      surface: 'csv',
      path: '/dashboard/gateway/statement.csv',
      base: {},
      params: { ...dates, type: 'choice' },
      choices: { type: 'PAYMENT' },
      send: asUser,
    },
    {
      surface: 'page',
      path: `/dashboard/webhooks/${endpointId}`,
      base: {},
      params: { page: 'page', status: 'choice' },
      choices: { status: 'failed' },
      send: asUser,
    },
    {
      surface: 'page',
      path: '/admin/access',
      base: {},
      params: { status: 'choice' },
      choices: { status: 'PENDING' },
      send: asAdmin,
    },
    {
      surface: 'page',
      path: '/admin/withdrawals',
      base: {},
      params: { status: 'choice' },
      choices: { status: 'PAID' },
      send: asAdmin,
    },
    {
      surface: 'page',
      path: '/admin/suspense',
      base: {},
      params: { status: 'choice' },
      choices: { status: 'REFUNDED' },
      send: asAdmin,
    },
    { surface: 'page', path: '/admin/reconciliation', base: period, params: dates, send: asAdmin },
    ...['/admin/revenue', '/admin/payout-report'].map(path => ({
      surface: 'page' as const,
      path,
      base: period,
      params: dates,
      send: asAdmin,
    })),
    ...['/admin/revenue.csv', '/admin/payout-report.csv', '/admin/balance-history.csv'].map(path => ({
      surface: 'csv' as const,
      path,
      base: { ...period, ...(path.includes('balance') ? { merchantId: admin.id } : {}) },
      params: { ...dates, table: 'choice' as const },
      choices: { table: path.includes('balance') ? 'accounts' : 'totals' },
      send: asAdmin,
    })),
    {
      surface: 'csv',
      path: '/admin/reconciliation.csv',
      base: period,
      params: { ...dates, table: 'choice' },
      choices: { table: 'fees' },
      send: asAdmin,
    },
    {
      surface: 'page',
      path: '/admin/streams',
      base: { id: `user-${admin.id}` },
      params: { fromRevision: 'revision' },
      send: asAdmin,
    },
    {
      surface: 'json',
      path: '/api/v1/accounts',
      base: {},
      params: { page: 'page', limit: 'limit', type: 'choice', isActive: 'choice' },
      choices: { type: 'bank', isActive: 'true' },
      send: withKey,
    },
    {
      surface: 'json',
      path: '/api/v1/mutations',
      base: {},
      params: { ...dates, page: 'page', limit: 'limit', accountType: 'choice', type: 'choice' },
      choices: { accountType: 'ewallet', type: 'DEBIT' },
      send: withKey,
    },
    {
      surface: 'json',
      path: `/api/v1/webhooks/${endpointId}/deliveries`,
      base: {},
      params: { page: 'page', limit: 'limit', status: 'choice' },
      choices: { status: 'succeeded' },
      send: withKey,
    },
    {
      surface: 'json',
      path: `/api/dashboard/webhooks/${endpointId}/deliveries`,
      base: {},
      params: { page: 'page', limit: 'limit', status: 'choice' },
      choices: { status: 'cancelled' },
      send: withSession,
    },
    {
      surface: 'json',
      path: '/api/v1/gateway/transactions',
      base: {},
      params: { ...dates, page: 'page', limit: 'limit', type: 'choice' },
      choices: { type: 'WITHDRAWAL_PAID' },
      send: url => merchantCall('GET', url),
    },
    {
      surface: 'json',
      path: '/api/v1/gateway/settlements',
      base: {},
      params: { ...dates, page: 'page', limit: 'limit' },
      send: url => merchantCall('GET', url),
    },
    {
      surface: 'json',
      path: '/api/admin/gateway/access-requests',
      base: {},
      params: { status: 'choice' },
      choices: { status: 'APPROVED' },
      send: adminSession,
    },
    {
      surface: 'json',
      path: '/api/admin/gateway/withdrawals',
      base: {},
      params: { status: 'choice' },
      choices: { status: 'REJECTED' },
      send: adminSession,
    },
    {
      surface: 'json',
      path: '/api/admin/gateway/suspense',
      base: {},
      params: { status: 'choice' },
      choices: { status: 'OPEN' },
      send: adminSession,
    },
    {
      surface: 'json',
      path: '/api/admin/gateway/reconciliation',
      base: period,
      params: { ...dates, table: 'choice' },
      choices: { table: 'payouts' },
      send: adminSession,
    },
    {
      surface: 'json',
      path: '/api/admin/gateway/reconciliation.csv',
      base: { ...period, table: 'merchants' },
      params: { ...dates, table: 'choice' },
      choices: { table: 'suspense' },
      send: adminSession,
    },
    ...(
      [
        'balance-history',
        'balance-history.csv',
        'revenue',
        'revenue.csv',
        'payout-report',
        'payout-report.csv',
      ] as const
    ).map(report => ({
      surface: 'json' as const,
      path: `/api/admin/gateway/${report}`,
      base: { ...period, ...(report.startsWith('balance') ? { merchantId: admin.id } : {}) },
      params: { ...dates, table: 'choice' as const },
      choices: { table: report.startsWith('balance') ? 'accounts' : 'totals' },
      send: adminSession,
    })),
    {
      surface: 'json',
      path: `/api/admin/streams/user-${admin.id}`,
      base: {},
      params: { fromRevision: 'revision', limit: 'limit' },
      maxLimit: 1000,
      send: adminSession,
    },
  ];
}

/** The values of a kind to try on a route: a page size is also tried just past the route's largest, and at it. */
function valuesOf(route: Route, kind: Exclude<Kind, 'choice'>, tried: 'malformed' | 'valid'): string[] {
  const largest = route.maxLimit ?? 100;
  if (tried === 'malformed') return kind === 'limit' ? [...malformed.limit, String(largest + 1)] : malformed[kind];
  return kind === 'limit' ? [...valid.limit, String(largest)] : valid[kind];
}

/** The route's URL with one parameter set; a valid date of a period's route is a one-day period (366 days at most). */
function urlOf(route: Route, name: string, value: string, valid = false): string {
  const query = new URLSearchParams({ ...route.base, [name]: value });
  if (valid && route.params[name] === 'date' && 'from' in route.base) {
    query.set('from', value);
    query.set('to', value);
  }
  return `${route.path}?${query}`;
}

/** What each surface answers to a refusal of `kind`: the page with its notice, the CSV's error page, the envelope. */
function expectRefusal(route: Route, kind: Kind, name: string, response: LightMyRequestResponse, said: string) {
  expect(response.statusCode, `${said}: ${oneLine(response.body)}`).toBe(400);
  if (route.surface === 'json') {
    expect(response.json(), said).toMatchObject({ status: 'error', code: 'VALIDATION_ERROR' });
    expect(JSON.stringify(response.json().errors), said).toContain(name);
    return;
  }
  expect(response.headers['content-type'], said).toMatch(/^text\/html/);
  const shown = route.surface === 'page' ? textOf(response.body, 'notice') : textOf(response.body, 'error-message');
  if (kind !== 'limit') expect(shown, said).toMatch(pageWords[kind]);
  expect(shown, said).not.toMatch(/must|Invalid|expected/);
}

const oneLine = (body: string) => body.replace(/\s+/g, ' ').slice(0, 200);

/** Runs every check and fails once with all that failed: one run names every route and value at fault. */
async function everyOf(checks: (() => Promise<void>)[]) {
  const failures: string[] = [];
  for (const check of checks) await check().catch((error: Error) => failures.push(error.message.split('\n')[0]!));
  expect(failures).toEqual([]);
}

describe('malformed query parameters', () => {
  it('answer 400 on every page, CSV export and JSON route that takes them, never 500', async () => {
    const checks = routes.flatMap(route =>
      Object.entries(route.params).flatMap(([name, kind]) =>
        (kind === 'choice' ? malformed.choice : valuesOf(route, kind, 'malformed')).map(value => async () => {
          const url = urlOf(route, name, value);
          expectRefusal(route, kind, name, await route.send(url), `${route.surface} ${url}`);
        }),
      ),
    );
    expect(checks.length).toBeGreaterThan(250);
    await everyOf(checks);
  }, 120_000);

  it('still answer 200 to the valid edges: the first and last dates, pages and sizes, every declared choice', async () => {
    const checks = routes.flatMap(route => [
      { route, url: `${route.path}?${new URLSearchParams(route.base)}` },
      ...Object.entries(route.params).flatMap(([name, kind]) =>
        (kind === 'choice' ? [route.choices![name]!] : valuesOf(route, kind, 'valid')).map(value => ({
          route,
          url: urlOf(route, name, value, true),
        })),
      ),
    ]);
    await everyOf(
      checks.map(({ route, url }) => async () => {
        const response = await route.send(url);
        expect(response.statusCode, `${url}: ${oneLine(response.body)}`).toBe(200);
      }),
    );
  }, 120_000);

  it('a blank filter, as an emptied GET form sends it, is no filter', async () => {
    await everyOf(
      routes
        .filter(route => route.surface !== 'json')
        .map(route => async () => {
          const blanks = Object.fromEntries(Object.keys(route.params).map(name => [name, '']));
          const response = await route.send(`${route.path}?${new URLSearchParams({ ...blanks, ...route.base })}`);
          expect(response.statusCode, `${route.path}: ${oneLine(response.body)}`).toBe(200);
        }),
    );
  });
});
