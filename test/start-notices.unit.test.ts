import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startNotices } from '../src/start-notices.ts';

const config = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'svc-notices-')), ...env });
const said = (env: Record<string, string>, sandboxUrl: string | null = null) =>
  startNotices(config(env), sandboxUrl).map(n => `${n.level}: ${n.message}`);

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
    expect(said({ HOST: '127.0.0.1' }, 'http://127.0.0.1:3001')).toEqual([
      'info: Sandbox provider: http://127.0.0.1:3001 (on 127.0.0.1; its control routes answer loopback only; docs/sandbox.md)',
    ]);
    expect(said({ HOST: '127.0.0.1', SANDBOX_URL: 'http://sandbox:3001' }, 'http://sandbox:3001')).toEqual([
      'info: Sandbox provider used: http://sandbox:3001 (SANDBOX_URL; docs/sandbox.md)',
    ]);
  });
});
