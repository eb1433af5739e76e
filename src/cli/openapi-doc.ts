import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { buildApp } from '../api/app.ts';
import type { AppDeps } from '../api/deps.ts';
import { systemClock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createMetrics } from '../metrics.ts';

/**
 * npm run openapi:write [file]: the document GET /openapi.json serves, from the routes as the service registers them,
 * built without a database or a socket (CI lints it with redocly). Nothing is called: any dependency a route would
 * use at build time answers by throwing, so a route that starts needing one here is seen at once.
 */
const unused = (name: string): never =>
  new Proxy(
    {},
    {
      get: (_target, key) => {
        throw new Error(`openapi:write: ${name}.${String(key)} used while building the app`);
      },
    },
  ) as never;

const config = loadConfig({ ...process.env, DATA_DIR: process.env.DATA_DIR ?? '/tmp', LOG_LEVEL: 'silent' });
const deps: Partial<AppDeps> = {
  log: createLogger('silent'),
  clock: systemClock,
  pool: new pg.Pool({ connectionString: 'postgres://unused@127.0.0.1:1/unused', max: 1 }),
  database: unused('database'),
  metrics: createMetrics(),
  testClock: null,
  config: {
    publicBaseUrl: config.publicBaseUrl,
    sessionTtlHours: config.sessionTtlHours,
    sessionIdleHours: config.sessionIdleHours,
    trustProxy: config.trustProxy,
    metricsToken: config.metricsToken,
    otp: config.otp,
    authLimits: config.authLimits,
    webhooks: unused('config.webhooks'),
    paymentChecks: config.paymentChecks,
    providerNotifications: config.providerNotifications,
    paymentStreams: config.paymentStreams,
    gateway: config.gateway,
    qr: config.qr,
    http: config.http,
  },
};
// the rest of the dependencies are for requests, which this app never answers
const app = await buildApp(
  new Proxy(deps, {
    get: (target, key) => (key in target ? target[key as keyof AppDeps] : unused(String(key))),
  }) as AppDeps,
);
await app.ready();
const document = JSON.stringify(app.swagger(), null, 2);
await app.close();
const target = process.argv[2];
if (target) writeFileSync(target, `${document}\n`);
else process.stdout.write(`${document}\n`);
