import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startNotices, startSummary } from '../src/start-notices.ts';

const config = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-notices-')), ...env });
const said = (env: Record<string, string>) => startNotices(config(env)).map(n => `${n.level}: ${n.message}`);

describe('what the start says about the configuration', () => {
  it('names WEBHOOK_ALLOW_PRIVATE when it is on, and says nothing of it otherwise', () => {
    expect(said({ HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE: 'true' })).toEqual([
      expect.stringMatching(/^warn: WEBHOOK_ALLOW_PRIVATE=true: webhooks may be sent to loopback and private/),
    ]);
    expect(said({ HOST: '127.0.0.1' })).toEqual([]);
  });

  it('warns when METRICS_TOKEN is unset on an address other machines reach', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3'])
      expect(said({ HOST: host }), host).toEqual([
        expect.stringMatching(/^warn: METRICS_TOKEN is unset while listening/),
      ]);
    for (const host of ['127.0.0.1', '::1', 'localhost']) expect(said({ HOST: host }), host).toEqual([]);
    expect(said({ HOST: '0.0.0.0', METRICS_TOKEN: 'metrics-token-0123456789' })).toEqual([]);
  });

  it("gives the sandbox's address in one line, and whether it is the service's own", () => {
    const summary = (env: Record<string, string>, sandboxUrl: string | null) => {
      const c = config(env);
      return startSummary(c, {
        url: 'http://localhost:3000',
        sandboxUrl,
        sandboxStarted: c.sandbox.start,
        ledgerKeyId: 'k',
      });
    };
    expect(summary({}, 'http://127.0.0.1:3001')).toContain(
      '  Sandbox:    http://127.0.0.1:3001, a provider sandbox: test banks and wallets, no real money (docs/sandbox.md)',
    );
    expect(summary({ SANDBOX_URL: 'http://sandbox:3001' }, 'http://sandbox:3001')).toContain(
      '  Sandbox:    http://sandbox:3001 (SANDBOX_URL), a provider sandbox: no real money (docs/sandbox.md)',
    );
    expect(summary({ NODE_ENV: 'production' }, null).join('\n')).not.toMatch(/Sandbox/);
  });

  it('names the dashboard and the API docs at PUBLIC_BASE_URL, not at the address it listens on', () => {
    const lines = startSummary(config({ PUBLIC_BASE_URL: 'https://pay.example.test' }), {
      url: 'http://localhost:3000',
      sandboxUrl: null,
      sandboxStarted: false,
      ledgerKeyId: '0123456789abcdef',
    });
    expect(lines).toEqual([
      'Service ready: http://localhost:3000',
      '  Dashboard:  https://pay.example.test/',
      '  API docs:   https://pay.example.test/docs (the OpenAPI document: https://pay.example.test/openapi.json)',
      '  Ledger key: 0123456789abcdef (its public key: https://pay.example.test/.well-known/ledger-keys; docs/auditing.md)',
    ]);
  });
});
