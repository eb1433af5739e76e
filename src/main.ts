import { ConfigError, loadConfig } from './config.ts';
import { serviceLogger } from './logger.ts';
import { createService } from './service.ts';
import { startNotices, startSummary } from './start-notices.ts';

const log = serviceLogger(process.env.LOG_LEVEL ?? 'info');

try {
  const config = loadConfig(process.env);
  const service = await createService(config, { log: serviceLogger(config.logLevel) });
  const url = await service.listen();
  const { sandboxUrl, ledgerKeyId } = service;
  for (const line of startSummary(config, { url, sandboxUrl, sandboxStarted: config.sandbox.start, ledgerKeyId }))
    console.log(line);
  for (const notice of startNotices(config)) {
    if (notice.level === 'warn') log.warn(notice.message);
    else console.log(notice.message);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: requests in flight finish, then the service and its database stop');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    service.close().then(
      () => process.exit(0),
      err => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  log.fatal({ err }, 'service failed to start');
  process.exit(1);
}
