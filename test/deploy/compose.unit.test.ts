import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configurationNames, loadConfig } from '../../src/config.ts';

/**
 * docker-compose.yml cannot be started on this machine (no Docker engine): these tests hold it to what docs/operating.md's
 * "Several instances" promises and to the configuration the service reads, so that a misspelt variable, a proxy
 * address the instances do not trust or a service name the proxy does not find fails here.
 */
const root = path.resolve(import.meta.dirname, '../..');
type Service = {
  image?: string;
  build?: string;
  command?: string[];
  restart?: string;
  environment?: Record<string, string>;
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  networks?: { default?: { ipv4_address?: string } };
  ports?: string[];
};
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  networks: { default: { ipam: { config: { subnet: string }[] } } };
};
const { services } = compose;
const service = services.service!;
const env = service.environment!;

/** A value as compose gives it with an empty .env: `${X:-default}` is the default, `${X:?message}` the test's value. */
function interpolated(value: string, required: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_all, name: string, fallback?: string) => {
    if (fallback !== undefined) return fallback;
    const given = required[name];
    if (given === undefined) throw new Error(`${name} has neither a default nor a test value`);
    return given;
  });
}

const requiredSecrets = {
  JWT_SECRET: randomBytes(32).toString('hex'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  LEDGER_SIGNING_KEY: generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'der', type: 'pkcs8' })
    .toString('base64'),
};

const hostOf = (url: string) => new URL(url).hostname;

describe('docker-compose.yml', () => {
  it('gives every instance only variables the service reads, and a configuration it starts with', () => {
    expect(Object.keys(env).filter(name => !configurationNames.includes(name))).toEqual([]);
    const config = loadConfig({
      ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolated(String(v), requiredSecrets)])),
      // the image's volume, here a folder of the test's
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'compose-config-')),
    });
    expect(config.eventStore).toBe('eventstoredb');
    expect(config.digestSigningKey).toBe(requiredSecrets.LEDGER_SIGNING_KEY);
  });

  it('runs two instances or more, each restarted, behind a proxy whose address is the one they trust', () => {
    expect(service.deploy?.replicas).toBeGreaterThanOrEqual(2);
    for (const [name, s] of Object.entries(services)) expect([name, s.restart]).toEqual([name, 'unless-stopped']);
    const proxyAddress = services.proxy!.networks!.default!.ipv4_address!;
    expect(env.TRUST_PROXY).toBe(proxyAddress);
    const [subnet, bits] = ipaddr.parseCIDR(compose.networks.default.ipam.config[0]!.subnet);
    expect(ipaddr.parse(proxyAddress).match(subnet, bits)).toBe(true);
    expect(service.ports).toBeUndefined(); // clients come through the proxy only
  });

  it('points the proxy at the instances by their service name and port, and the instances at their neighbours', () => {
    const caddyfile = readFileSync(path.join(root, 'deploy/Caddyfile'), 'utf8');
    expect(caddyfile).toMatch(/dynamic a \{\s*name service\s*port (\d+)/);
    expect(caddyfile.match(/dynamic a \{\s*name service\s*port (\d+)/)![1]).toBe(env.PORT);
    expect(Object.keys(services)).toContain('service');
    expect(hostOf(env.EVENTSTORE_CONNECTION_STRING!)).toBe('eventstore');
    expect(hostOf(interpolated(env.DATABASE_URL!, requiredSecrets))).toBe('postgres');
    const sandboxUrl = new URL(env.SANDBOX_URL!);
    expect([sandboxUrl.hostname, sandboxUrl.port]).toEqual(['sandbox', services.sandbox!.environment!.SANDBOX_PORT]);
    expect(service.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${env.PORT}/ready`);
    expect(Object.keys(service.depends_on!).sort()).toEqual(['eventstore', 'postgres', 'sandbox']);
  });

  it('runs a KurrentDB whose multi-stream append the service accepts (25.1 tags, 25.1.1 or later)', () => {
    const [, tag] = services.eventstore!.image!.split(':');
    const [major, minor] = tag!.split('.').map(Number);
    expect(major! * 100 + minor!).toBeGreaterThanOrEqual(2501);
  });

  it('lets PostgreSQL hold ten instances at the pool size it gives them, the CLI and the superusers', () => {
    const maxConnections = Number(services.postgres!.command!.at(-1)!.split('=')[1]);
    const pool = Number(interpolated(env.DATABASE_POOL_MAX!, requiredSecrets));
    // docs/configuration.md, "Connections": DATABASE_POOL_MAX + 2 per instance, 4 for the CLI, 3 kept for superusers
    expect(maxConnections).toBeGreaterThanOrEqual(10 * (pool + 2) + 4 + 3);
  });
});
