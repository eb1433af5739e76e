import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  isLoopbackAddress,
  isPublicAddress,
  loopbackOr,
  parseWebhookUrl,
  resolveTarget,
  TargetRefused,
  type ResolvedAddress,
} from '../../src/security/address-guard.ts';

// An oracle written apart from the guard's library: IPv4 blocks that are not public (IANA special-purpose registry).
const nonPublicV4: [number, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
].map(([a, bits]) => [toInt(a as string), bits as number]);

function toInt(v4: string): number {
  return v4.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}
const toV4 = (n: number) => [24, 16, 8, 0].map(s => (n >>> s) & 255).join('.');
const inBlock = (n: number, [base, bits]: [number, number]) => bits === 0 || n >>> (32 - bits) === base >>> (32 - bits);

const anyV4 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const privateV4 = fc
  .tuple(fc.constantFrom(...nonPublicV4), anyV4)
  .map(([[base, bits], r]) => toV4((base | (r & (2 ** (32 - bits) - 1))) >>> 0));
// as112 and amt blocks are unicast to the library though special to IANA: left out of the public side of the oracle
const publicV4 = anyV4
  .filter(n => !nonPublicV4.some(b => inBlock(n, b)) && n !== 2 ** 32 - 1)
  .filter(n => ![toInt('192.175.48.0'), toInt('192.31.196.0'), toInt('192.52.193.0')].includes((n & 0xffffff00) >>> 0))
  .map(toV4);

describe('which addresses a webhook may reach', () => {
  test.prop([privateV4])(
    'private, loopback, link-local, CGNAT, multicast, reserved and unspecified IPv4 are refused',
    a => {
      expect(isPublicAddress(a)).toBe(false);
    },
  );

  test.prop([publicV4])('other IPv4 addresses are public', a => {
    expect(isPublicAddress(a)).toBe(true);
  });

  test.prop([anyV4.map(toV4)])(
    'an IPv4-mapped IPv6 address is judged as the IPv4 address it carries, in either notation',
    a => {
      const [hi, lo] = [toInt(a) >>> 16, toInt(a) & 0xffff];
      expect(isPublicAddress(`::ffff:${a}`)).toBe(isPublicAddress(a));
      expect(isPublicAddress(`::ffff:${hi.toString(16)}:${lo.toString(16)}`)).toBe(isPublicAddress(a));
    },
  );

  test.prop([
    fc.constantFrom(
      '::1',
      '::',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
      '2001::1',
      '2001:db8::1',
      '::7f00:1',
      '100::1',
    ),
  ])(
    'loopback, unspecified, link-local, unique-local, multicast, NAT64, 6to4, Teredo, documentation and IPv4-compatible IPv6 are refused',
    a => {
      expect(isPublicAddress(a)).toBe(false);
    },
  );

  it('global IPv6 unicast is public', () => {
    for (const a of ['2a00:1450:4001:80b::200e', '2606:4700:4700::1111', '2400:cb00::1'])
      expect(isPublicAddress(a)).toBe(true);
  });

  test.prop([fc.string()])('anything that is not an address is refused', s => {
    fc.pre(!/^[0-9a-f:.%]+$/i.test(s));
    expect(isPublicAddress(s)).toBe(false);
  });
});

describe('the form of a webhook URL', () => {
  it('takes http and https URLs', () => {
    expect(parseWebhookUrl('https://shop.example/hooks?x=1').href).toBe('https://shop.example/hooks?x=1');
    expect(parseWebhookUrl('http://shop.example:8080').href).toBe('http://shop.example:8080/');
  });

  it('refuses other schemes, relative URLs, credentials and very long URLs', () => {
    for (const raw of [
      'ftp://shop.example/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'gopher://x/',
      '/hooks',
      'not a url',
      'https://user:pass@shop.example/',
      `https://shop.example/${'a'.repeat(2048)}`,
    ]) {
      expect(() => parseWebhookUrl(raw), raw).toThrow(TargetRefused);
    }
  });
});

describe('where a webhook request may go', () => {
  const strict = (answers: Record<string, string[]>) => ({
    allowPrivate: false,
    resolveHost: async (host: string): Promise<ResolvedAddress[]> =>
      (answers[host] ?? []).map(a => ({ address: a, family: a.includes(':') ? 6 : 4 })),
  });
  const refusal = (url: string, policy: ReturnType<typeof strict>) =>
    resolveTarget(new URL(url), policy).then(
      () => null,
      (e: TargetRefused) => e.reason,
    );

  it('refuses private addresses written in any form the URL parser accepts', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://10.1.2.3/',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://0.0.0.0/',
    ]) {
      expect(await refusal(url, strict({})), url).toBe('PRIVATE_ADDRESS');
    }
  });

  it('answers the first address, checked, to connect to', async () => {
    const policy = strict({ 'shop.example': ['93.184.216.34', '2606:2800:220:1::1'] });
    expect(await resolveTarget(new URL('https://shop.example/'), policy)).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  test.prop([fc.array(publicV4, { minLength: 0, maxLength: 5 }), privateV4, fc.nat()])(
    'refuses a host when any one of its addresses is not public',
    async (publicOnes, privateOne, at) => {
      const addresses = [...publicOnes];
      addresses.splice(at % (addresses.length + 1), 0, privateOne);
      expect(await refusal('https://shop.example/', strict({ 'shop.example': addresses }))).toBe('PRIVATE_ADDRESS');
    },
  );

  it('refuses a host that does not resolve', async () => {
    expect(await refusal('https://nowhere.example/', strict({}))).toBe('UNRESOLVABLE');
  });

  it('allows private addresses when configured to', async () => {
    const policy = { ...strict({ 'receiver.internal': ['10.0.0.5'] }), allowPrivate: true };
    expect(await resolveTarget(new URL('http://receiver.internal/'), policy)).toEqual({
      address: '10.0.0.5',
      family: 4,
    });
    expect(await resolveTarget(new URL('http://[::1]:8080/'), policy)).toEqual({ address: '::1', family: 6 });
  });
});

describe('who a loopback-only route answers', () => {
  it('takes 127.0.0.0/8, ::1 and IPv4-mapped loopback as this machine, and nothing else', () => {
    for (const a of ['127.0.0.1', '127.9.8.7', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['10.0.0.1', '0.0.0.0', '::', '::ffff:10.0.0.1', '172.30.26.1', '', 'localhost', 'fe80::1'])
      expect(isLoopbackAddress(a), a).toBe(false);
  });

  test.prop([anyV4])('adds exactly the named addresses and ranges to loopback', n => {
    const allowed = loopbackOr(['172.30.26.1', '10.0.0.0/8']);
    const address = toV4(n);
    const expected = address.startsWith('127.') || address === '172.30.26.1' || address.startsWith('10.');
    expect(allowed(address)).toBe(expected);
    expect(allowed(`::ffff:${address}`)).toBe(expected);
  });

  it('refuses an entry that is neither an address nor a CIDR', () => {
    expect(() => loopbackOr(['sandbox.local'])).toThrow();
  });
});
