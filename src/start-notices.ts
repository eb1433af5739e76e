import { isIP } from 'node:net';
import type { Config } from './config.ts';
import { isLoopbackAddress } from './security/address-guard.ts';

/** A line the start writes, at the level an operator should read it at. */
export type StartNotice = { level: 'info' | 'warn'; message: string };

const onLoopbackOnly = (host: string) =>
  host === 'localhost' || (isIP(host.replace(/^\[|\]$/g, '')) !== 0 && isLoopbackAddress(host.replace(/^\[|\]$/g, '')));

/**
 * What the configuration opens beyond the safe defaults, said once at start so that an operator sees it in the log:
 * webhooks into the private network, operator views with no token on a reachable address, the sandbox's address.
 */
export function startNotices(config: Config, sandboxUrl: string | null): StartNotice[] {
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
  if (sandboxUrl && config.sandbox.start)
    notices.push({
      level: 'info',
      message: `Sandbox provider: ${sandboxUrl} (on ${config.sandbox.host}; its control routes answer loopback only; docs/sandbox.md)`,
    });
  else if (sandboxUrl)
    notices.push({ level: 'info', message: `Sandbox provider used: ${sandboxUrl} (SANDBOX_URL; docs/sandbox.md)` });
  return notices;
}
