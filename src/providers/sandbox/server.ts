import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logger.ts';
import { isLoopbackAddress } from '../../security/address-guard.ts';
import { controlRoutes } from './control-routes.ts';
import { registerSandboxErrors } from './errors.ts';
import { Faults } from './faults.ts';
import { sandboxLogin } from './login.ts';
import { sandboxNotifier, type SandboxNotifier, type SandboxPush } from './notifications.ts';
import { sandboxPayments } from './payments.ts';
import { sandboxQrImages } from './qr-images.ts';
import { sandboxTransfers } from './transfers.ts';
import { debouncedWriter, readStateFile } from './persistence.ts';
import { providerRoutes } from './provider-routes.ts';
import { sandboxSessions } from './sessions.ts';
import { SandboxState } from './state.ts';

/**
 * The sandbox provider: a separate HTTP server that plays the banks and e-wallets in test mode. Connectors
 * talk to /providers/* as to a real provider; people and tests drive it through /sandbox/*.
 */
export type SandboxOptions = {
  clock: Clock;
  log?: Logger;
  /** JSON file the state is kept in (written shortly after each change and on close, read at start). */
  stateFile?: string;
  sessionTtlMs?: number;
  otpTtlMs?: number;
  /** which peers may use /sandbox/* (OTP codes, credits, faults): loopback unless the operator names others */
  controlAllowed?: (address: string) => boolean;
  /** notifications of money landed pushed to the service (none when absent: the service polls) */
  push?: SandboxPush;
};

export type Sandbox = { app: FastifyInstance; state: SandboxState; faults: Faults; notifier: SandboxNotifier };

const hour = 60 * 60 * 1000;

/** Builds the sandbox without listening, so tests use `inject`. */
export async function buildSandbox(opts: SandboxOptions): Promise<Sandbox> {
  const snapshot = opts.stateFile ? readStateFile(opts.stateFile, opts.log) : null;
  const state = snapshot ? SandboxState.restore(opts.clock, snapshot) : new SandboxState(opts.clock);
  const faults = new Faults();
  const sessions = sandboxSessions(state, opts.clock, opts.sessionTtlMs ?? 24 * hour);
  const login = sandboxLogin({ state, clock: opts.clock, faults, sessions, otpTtlMs: opts.otpTtlMs ?? 5 * 60 * 1000 });
  const notifier = sandboxNotifier({ push: opts.push, faults, clock: opts.clock, log: opts.log });
  const payments = sandboxPayments(state, notifier.credited);
  const transfers = sandboxTransfers(state, faults, payments);
  const qrImages = sandboxQrImages();

  const app: FastifyInstance = opts.log
    ? Fastify({ loggerInstance: opts.log.child({ component: 'sandbox' }) as FastifyBaseLogger, bodyLimit: 64 * 1024 })
    : Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerSandboxErrors(app);
  app.addHook('onClose', async () => qrImages.close());
  app.addHook('onClose', async () => notifier.settled());

  if (opts.stateFile) {
    const writer = debouncedWriter(opts.stateFile, () => state.snapshot(), opts.log);
    state.onChange(writer.schedule);
    app.addHook('onClose', async () => writer.flush());
  }

  app.get('/health', async () => ({ status: 'ok' }));
  await app.register(providerRoutes({ faults, sessions, login, payments, transfers }), {
    prefix: '/providers/:providerCode',
  });
  await app.register(
    controlRoutes({
      state,
      faults,
      sessions,
      payments,
      qrImages,
      notifier,
      controlAllowed: opts.controlAllowed ?? isLoopbackAddress,
    }),
    { prefix: '/sandbox' },
  );
  return { app, state, faults, notifier };
}

export type StartedSandbox = { url: string; close(): Promise<void> };

/** Builds and listens (on loopback unless `host` says otherwise); port 0 picks a free port, and `url` says which. */
export async function startSandbox(opts: SandboxOptions & { port: number; host?: string }): Promise<StartedSandbox> {
  const { app } = await buildSandbox(opts);
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ port: opts.port, host, listenTextResolver: at => `sandbox provider listening on ${at}` });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  // a wildcard address is not one a client can call; the loopback reaches it
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { url: `http://${reachable}:${port}`, close: () => app.close() };
}
