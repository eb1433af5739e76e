import type { Document } from 'openapi-backend';
import { ContractChecker } from './contract.ts';

const checkers = new Map<string, Promise<ContractChecker | undefined>>();

/** The checker for a service at `origin`, from the document it serves; none for an origin without one (the sandbox, a receiver). */
function checkerFor(origin: string): Promise<ContractChecker | undefined> {
  let checker = checkers.get(origin);
  if (!checker) {
    checker = fetch(`${origin}/openapi.json`)
      .then(async r => (r.ok ? new ContractChecker((await r.json()) as Document) : undefined))
      // not up yet: asked again next time
      .catch(() => void checkers.delete(origin));
    checkers.set(origin, checker);
  }
  return checker;
}

/**
 * fetch, and the answer checked against the OpenAPI document the answering service serves: the e2e tests'
 * calls to a running service go through it, so an answer the document does not describe fails the test.
 */
export async function checkedFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = new URL(String(input));
  const response = await fetch(url, init);
  const checker = await checkerFor(url.origin);
  // a redirect followed answers for another path than the one asked
  if (!checker || response.redirected) return response;
  const body = await response.clone().text();
  const headers = Object.fromEntries(response.headers.entries());
  const breaches = await checker.breaches(
    { method: init.method ?? 'GET', url: url.pathname },
    { statusCode: response.status, headers, body },
  );
  if (breaches.length > 0) throw new Error(`the answer breaks the OpenAPI document:\n${breaches.join('\n')}`);
  return response;
}
