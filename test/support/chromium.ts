import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';
import { freePort } from '../../src/db/free-port.ts';
import { startTestService } from './service.ts';

const packageDir = path.resolve(import.meta.dirname, '../../node_modules/@sparticuz/chromium');
const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };

// this machine's closed network refuses Chromium's background connections; the page needs no GPU
const machineFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// the package's flags for serverless use, less those that switch off the web's own rules (which a phone keeps) and
// --single-process, in which closing a test's browser context ends the whole browser
const leftOut = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--single-process',
]);

/**
 * The folder holding Chromium as @sparticuz/chromium ships it inside its npm package (no apt package, no download):
 * unpacked on first use into a folder of its version, made whole before it is named so that an interrupted or
 * concurrent unpacking is never used.
 */
async function unpacked(): Promise<string> {
  const home = path.join(tmpdir(), `sparticuz-chromium-${version}`);
  if (existsSync(path.join(home, 'chromium'))) return home;
  const staging = mkdtempSync(`${home}-unpacking-`);
  // the package unpacks into os.tmpdir(), read as the call starts (not its shared default: a stale or half-written
  // /tmp/chromium of another version would be used as it is)
  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  let unpacking: Promise<string>;
  try {
    unpacking = sparticuz.executablePath();
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  }
  const executable = await unpacking;
  if (executable !== path.join(staging, 'chromium'))
    throw new Error(`@sparticuz/chromium ${version} unpacked to ${executable}, not ${staging}`);
  // its own fonts.conf names /tmp/fonts: one naming where the fonts are, so every machine renders with the same fonts
  writeFileSync(
    path.join(staging, 'fonts.conf'),
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig><dir>${home}/fonts</dir><cachedir>${home}/fonts-cache</cachedir></fontconfig>
`,
  );
  try {
    renameSync(staging, home);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run unpacked it first
  }
  return home;
}

/** Headless Chromium from the npm package, driven by playwright-core; `args` are flags of the test's own. */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  const home = await unpacked();
  sparticuz.setGraphicsMode = false; // no WebGL: the page draws nothing with the GPU
  return chromium.launch({
    executablePath: path.join(home, 'chromium'),
    args: [...sparticuz.args.filter(flag => !leftOut.has(flag)), ...machineFlags, ...args],
    env: { ...process.env, FONTCONFIG_PATH: home },
  });
}

/**
 * A phone-sized page (375x667, touch) that records every script error, console error, CSP violation and request to
 * anywhere but `origins` in `problems`, for the test to expect empty. `answer` gives origins the context answers
 * itself (a shop to return to), never reached.
 */
export async function phonePage(
  browser: Browser,
  baseUrl: string,
  opts: { answer?: Record<string, string>; locale?: string } = {},
) {
  const context = await browser.newContext({
    viewport: { width: 375, height: 667 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
    locale: opts.locale,
  });
  for (const [origin, body] of Object.entries(opts.answer ?? {}))
    await context.route(`${origin}/**`, route => route.fulfill({ contentType: 'text/html', body }));
  const page = await context.newPage();
  const problems: string[] = [];
  const allowed = [baseUrl, ...Object.keys(opts.answer ?? {})];
  page.on('console', message => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', error => problems.push(`page error: ${error.message}`));
  page.on('request', request => {
    if (!allowed.some(origin => request.url().startsWith(origin)))
      problems.push(`request outside the service: ${request.url()}`);
  });
  return { context, page, problems };
}

/**
 * A test service listening where its PUBLIC_BASE_URL says (the URLs its pages give are the ones the browser reaches),
 * its business clock set to today (the pages' dates are the browser's), and Chromium to look at it. Its sessions run
 * on its wall clock, which starts at the real time: the cookies' expiry is in the browser's future.
 */
export async function startBrowserService(env: Record<string, string> = {}) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = await startTestService({ PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: baseUrl, ...env });
  await service.listen();
  service.clock.set(new Date());
  return { service, baseUrl, browser: await launchChromium() };
}
