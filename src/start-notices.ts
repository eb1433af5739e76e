import { isIP } from 'node:net';
import type { Config } from './config.ts';
import { isLoopbackAddress } from './security/address-guard.ts';

/** What a person starting the service needs first: where to go, what is a sandbox, which key signs the ledger. */
export function startSummary(
  config: Pick<Config, 'publicBaseUrl'>,
  started: { url: string; sandboxUrl: string | null; sandboxStarted: boolean; ledgerKeyId: string },
): string[] {
  const base = config.publicBaseUrl;
  return [
    `Service ready: ${started.url}`,
    `  Dashboard:  ${base}/`,
    `  API docs:   ${base}/docs (the OpenAPI document: ${base}/openapi.json)`,
    ...(started.sandboxUrl
      ? [
          started.sandboxStarted
            ? `  Sandbox:    ${started.sandboxUrl}, a provider sandbox: test banks and wallets, no real money (docs/sandbox.md)`
            : `  Sandbox:    ${started.sandboxUrl} (SANDBOX_URL), a provider sandbox: no real money (docs/sandbox.md)`,
        ]
      : []),
    `  Ledger key: ${started.ledgerKeyId} (its public key: ${base}/.well-known/ledger-keys; docs/auditing.md)`,
  ];
}

/** A line the start writes, at the level an operator should read it at. */
export type StartNotice = { level: 'info' | 'warn'; message: string };

const onLoopbackOnly = (host: string) =>
  host === 'localhost' || (isIP(host.replace(/^\[|\]$/g, '')) !== 0 && isLoopbackAddress(host.replace(/^\[|\]$/g, '')));

/**
 * What the configuration opens beyond the safe defaults, said once at start so that an operator sees it in the log:
 * webhooks into the private network, operator views with no token on a reachable address.
 */
export function startNotices(config: Config): StartNotice[] {
  const notices: StartNotice[] = [];
  if (config.webhookAllowPrivate)
    notices.push({
      level: 'warn',
      message:
        'WEBHOOK_ALLOW_PRIVATE=true: webhooks may be sent to loopback and private-network addresses, reachable by every tenant',
    });
  if (!config.metricsToken && !onLoopbackOnly(config.host))
    notices.push({
      level: 'warn',
      message: `METRICS_TOKEN is unset while listening on ${config.host}: /metrics and /ready's details answer unforwarded loopback connections only; set METRICS_TOKEN if a proxy on this machine passes connections through`,
    });
  return notices;
}
