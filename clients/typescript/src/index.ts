import createFetchClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.ts';

export type { components, operations, paths };
export type AccountSyncClient = Client<paths>;

/**
 * A typed client of the account-sync payments API: every path, parameter, body and answer as the service's OpenAPI
 * document describes it. `apiKey` is the `x-api-key` of /api/v1 (create one on the dashboard); `fetch` replaces
 * the global fetch (tests, proxies).
 */
export function createClient(
  baseUrl: string,
  { apiKey, fetch }: { apiKey?: string; fetch?: ClientOptions['fetch'] } = {},
): AccountSyncClient {
  return createFetchClient<paths>({
    baseUrl,
    ...(apiKey ? { headers: { 'x-api-key': apiKey } } : {}),
    ...(fetch ? { fetch } : {}),
  });
}
