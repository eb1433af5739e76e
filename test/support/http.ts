import type { LightMyRequestResponse } from 'fastify';
import type { TestService } from './service.ts';

/** The companion cookie of each session cookie seen (under an https base URL a session is both). */
const companions = new Map<string, string>();

/** The session cookie svc_token a response set; its companion, if any, goes with it in `sessionCookies`. */
export function sessionCookie(response: LightMyRequestResponse): string {
  const cookie = response.cookies.find(c => c.name === 'svc_token');
  if (!cookie) throw new Error(`no svc_token cookie in ${response.statusCode} ${response.body}`);
  const companion = response.cookies.find(c => c.name === '__Host-svc_bind');
  if (companion) companions.set(cookie.value, companion.value);
  return cookie.value;
}

/** The cookies a browser holding the session `token` sends: svc_token, and its companion under https. */
export function sessionCookies(token: string): Record<string, string> {
  const companion = companions.get(token);
  return companion ? { svc_token: token, '__Host-svc_bind': companion } : { svc_token: token };
}

let counter = 0;

/** Registers a new user (deterministic, distinct emails) and answers its id and session cookie. */
export async function registerUser(
  service: TestService,
  overrides: Partial<{ name: string; email: string; password: string }> = {},
) {
  counter++;
  const body = {
    name: `User ${counter}`,
    email: `user${counter}-${process.pid}@example.com`,
    password: 'rahasia123',
    ...overrides,
  };
  // each test user signs up from an address of its own, as people do: sign-ups are limited per address
  const remoteAddress = `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
  const response = await service.app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: body,
    remoteAddress,
  });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  return { id: response.json().user.id as string, cookie: sessionCookie(response), ...body };
}

export async function createKey(service: TestService, cookie: string, name = 'test key') {
  const response = await service.app.inject({
    method: 'POST',
    url: '/api/dashboard/api-keys',
    cookies: sessionCookies(cookie),
    payload: { name },
  });
  if (response.statusCode !== 201) throw new Error(`key create failed: ${response.statusCode} ${response.body}`);
  return response.json().data as { id: string; key: string; prefix: string; name: string; createdAt: string };
}

/** A user with an API key, and a caller for /api/v1 with that key. */
export async function keyHolder(service: TestService) {
  const user = await registerUser(service);
  const { key } = await createKey(service, user.cookie);
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    service.app.inject({ method, url, headers: { 'x-api-key': key }, payload: payload as never });
  return { ...user, key, call };
}
