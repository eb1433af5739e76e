import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import {
  parseWebhookUrl,
  resolveTarget,
  TargetRefused,
  type AddressPolicy,
  type ResolvedAddress,
} from '../security/address-guard.ts';
import { parseRetryAfter } from './retry-schedule.ts';

/** What one attempt gave: the receiver's status, or why there was none. */
export type AttemptResult = {
  statusCode: number | null;
  error: string | null;
  retryAfterMs: number | null;
  durationMs: number;
};

export const isSuccess = (r: AttemptResult) => r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;

type Callback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A socket lookup that answers the address the guard checked, whatever DNS would say now (no rebinding). */
const pinnedLookup = (target: ResolvedAddress) => (_hostname: string, options: LookupOptions, callback: Callback) => {
  if (options.all) callback(null, [{ address: target.address, family: target.family }]);
  else callback(null, target.address, target.family);
};

const maxErrorLength = 300;

/**
 * POSTs a webhook once. The host is resolved and checked by the SSRF guard, and the socket connects to the checked
 * address; redirects are not followed; the answer's body is not read (only the status counts). `timeoutMs` bounds
 * the wait for the answer's status line and headers.
 */
export async function postWebhook(
  request: { url: string; body: string; headers: Record<string, string> },
  policy: AddressPolicy & { timeoutMs: number },
): Promise<AttemptResult> {
  const started = performance.now();
  const result = (
    statusCode: number | null,
    error: string | null,
    retryAfterMs: number | null = null,
  ): AttemptResult => ({
    statusCode,
    error: error && error.slice(0, maxErrorLength),
    retryAfterMs,
    durationMs: Math.round(performance.now() - started),
  });
  let url: URL;
  let target: ResolvedAddress;
  try {
    url = parseWebhookUrl(request.url);
    target = await resolveTarget(url, policy);
  } catch (err) {
    if (err instanceof TargetRefused) return result(null, `refused: ${err.message}`);
    throw err;
  }
  return new Promise<AttemptResult>(resolve => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(
      url,
      {
        method: 'POST',
        agent: false,
        lookup: pinnedLookup(target),
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(request.body)),
          'user-agent': 'svc-webhooks/1',
          ...request.headers,
        },
      },
      res => {
        clearTimeout(timer);
        const retryAfter = res.headers['retry-after'];
        resolve(
          result(
            res.statusCode ?? null,
            null,
            parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, Date.now()),
          ),
        );
        res.destroy();
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`timed out after ${policy.timeoutMs} ms`)), policy.timeoutMs);
    req.on('error', err => {
      clearTimeout(timer);
      resolve(result(null, err.message || String(err)));
    });
    req.end(request.body);
  });
}
