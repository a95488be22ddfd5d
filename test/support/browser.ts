/**
 * Headless Chromium for the browser tests and the web UI benchmark: Debian's `chromium` package
 * (test/browser/ensure-chromium.sh installs it) driven by playwright-core. Nothing leaves the machine:
 * the flags switch off every background connection Chromium would otherwise try (updates, sync,
 * QUIC probes), and each launch gets a fresh profile folder.
 *
 * `watchPage` records what a person would see go wrong: console errors, uncaught exceptions, failed
 * requests and HTTP error responses; tests assert the list is empty.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface LaunchedBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile folder (Playwright passes it as --user-data-dir). */
export async function launchChromium(options: { viewport?: { width: number; height: number } } = {}): Promise<LaunchedBrowser> {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: run bash test/browser/ensure-chromium.sh`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: options.viewport ?? { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface PageProblems {
  problems: string[];
}

/** Collects console errors, page errors, failed requests (not a stream the page closed) and 4xx/5xx responses of `page`. */
export function watchPage(page: Page): PageProblems {
  const watched: PageProblems = { problems: [] };
  page.on('console', (message) => {
    if (message.type() === 'error') watched.problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => watched.problems.push(`uncaught: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText;
    // A live stream the page closed (it left the page, or paused the panel) ends as aborted: nothing a person sees go wrong.
    if (reason === 'net::ERR_ABORTED' && new URL(request.url()).pathname === '/v1/stream/sse') return;
    watched.problems.push(`request failed: ${request.method()} ${request.url()} (${reason})`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400) watched.problems.push(`HTTP ${response.status()}: ${response.request().method()} ${response.url()}`);
  });
  return watched;
}

/** Waits for the page's readiness marker (webui/lib/ready.ts). */
export async function waitForReady(page: Page, timeoutMs = 15_000): Promise<void> {
  await page.waitForSelector('html[data-ready="true"]', { state: 'attached', timeout: timeoutMs });
}

const SCREENSHOTS = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../test-results/webui');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

let axeSource: string | undefined;

/**
 * Runs axe-core (from npm) in the page against WCAG 2.1 A and AA and returns the violations as
 * readable lines. It is evaluated through the DevTools protocol, so the page's CSP stays in force.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  axeSource ??= fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<any> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map(
      (v: any) =>
        `${v.id} (${v.impact}): ${v.help} - ${v.nodes
          .map((n: any) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
  });
  return violations as string[];
}
