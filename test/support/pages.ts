import type { LightMyRequestResponse } from 'fastify';
import type { TestService } from './service.ts';

let address = 0;

/**
 * A browser as the dashboard's pages see it, through inject: it keeps the cookies it is given (and drops cleared
 * ones), posts forms urlencoded, and finds the form token in a page. Each has an address of its own (the sign-in
 * limits count per address).
 */
export function pageBrowser(service: TestService) {
  address++;
  const remoteAddress = `10.200.${(address >> 8) & 255}.${address & 255}`;
  const jar = new Map<string, string>();
  let lastToken: string | null = null;

  async function request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    body?: { payload: Buffer; headers: Record<string, string> },
  ): Promise<LightMyRequestResponse> {
    const response = await service.app.inject({
      method,
      url,
      remoteAddress,
      cookies: Object.fromEntries(jar),
      ...(form
        ? {
            payload: new URLSearchParams(form).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }
        : {}),
      ...(body ?? {}),
    });
    for (const c of response.cookies) {
      if (c.value === '' || (c.expires && c.expires.getTime() < Date.UTC(2000, 0, 1)))
        jar.delete(c.name); // cleared
      else jar.set(c.name, c.value);
    }
    const token = formTokenOf(response.body);
    if (token) lastToken = token;
    return response;
  }

  return {
    jar,
    get: (url: string) => request('GET', url),
    /** Posts a form with the token of the last page seen, unless the form says otherwise. */
    post: (url: string, form: Record<string, string> = {}) => request('POST', url, { _csrf: lastToken ?? '', ...form }),
    /** Posts a multipart form (a file upload) with the token of the last page seen. */
    postMultipart: (
      url: string,
      fields: Record<string, string>,
      file?: { name: string; bytes: Buffer; type: string },
    ) => request('POST', url, undefined, multipartForm({ _csrf: lastToken ?? '', ...fields }, file)),
    /** Posts a body already urlencoded (bytes a browser would not send), with the form content type. */
    postRaw: (url: string, body: string) =>
      request('POST', url, undefined, {
        payload: Buffer.from(body),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    /** Posts a form without any token. */
    postBare: (url: string, form: Record<string, string> = {}) => request('POST', url, form),
    get token() {
      return lastToken;
    },
  };
}

export type PageBrowser = ReturnType<typeof pageBrowser>;

/** A multipart form as a browser sends it. */
export function multipartForm(fields: Record<string, string>, file?: { name: string; bytes: Buffer; type: string }) {
  const boundary = `----form${Date.now()}${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file)
    parts.push(
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="${file.name}"; filename="qr"\r\ncontent-type: ${file.type}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export const formTokenOf = (html: string) => /name="_csrf" value="([^"]*)"/.exec(html)?.[1] ?? null;

/** A browser signed in through the pages as a new user: register form, then the dashboard. */
export async function signedInBrowser(service: TestService, name = 'Pemilik Toko') {
  const browser = pageBrowser(service);
  await browser.get('/register');
  const email = `page-${address}-${process.pid}@example.com`;
  const registered = await browser.post('/register', { name, email, password: 'rahasia123' });
  if (registered.statusCode !== 303) throw new Error(`register page: ${registered.statusCode} ${registered.body}`);
  await browser.get('/dashboard');
  return { browser, email, password: 'rahasia123' };
}

/** The text of an element by id, tags stripped (enough for the pages' own markup). */
export function textOf(html: string, id: string): string | null {
  const m = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html);
  return m ? m[1]!.replace(/<[^>]+>/g, '').trim() : null;
}

/** A caller of /api/v1 with a key made on the viewer's API keys page, for setting up what the pages then show. */
export async function keyCallerOf(service: TestService, browser: PageBrowser) {
  const made = await browser.post('/dashboard/api-keys', { name: 'setup' });
  const key = textOf(made.body, 'new-key-value');
  if (!key) throw new Error(`key page: ${made.statusCode}`);
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    service.app.inject({ method, url, headers: { 'x-api-key': key }, payload: payload as never });
  return { key, call };
}
