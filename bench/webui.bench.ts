/**
 * Web UI budget, measured in the browser the tests use (Debian's Chromium via playwright-core) on
 * loopback, cold (HTTP cache off):
 *  - time to interactive of the first page (/app signed out: the sign-up page) and of a signed-in data
 *    page (/app/markets: session, access report and a market list from /v1), read from the page's
 *    `tapeline:interactive` performance mark (webui/lib/ready.ts), in ms since navigation start;
 *  - reference: a static HTML page without scripts from a bare node:http server, its load event;
 *    ratios are to that reference in the same run;
 *  - bundle: bytes the first page loads (raw and gzip) and every chunk, from the real build.
 * Budget: first page interactive under 1000 ms. Writes bench/results/webui.json.
 *
 *   npm run bench:webui          (BENCH_RUNS=15 loads per page by default)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { buildBundle, firstPageBytes } from '../api/webui/bundle.js';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { launchChromium } from '../test/support/browser.js';
import { startBenchApi } from './bench-api-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const BUDGET_MS = 1000;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const round = (n: number) => Math.round(n * 10) / 10;
const summary = (values: number[]) => ({
  p50_ms: round(quantile(values, 0.5)),
  p90_ms: round(quantile(values, 0.9)),
  max_ms: round(Math.max(...values)),
});

async function coldLoads(page: Page, url: string, measure: () => Promise<number>): Promise<number[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    await page.goto('about:blank');
    await page.goto(url);
    const ms = await measure();
    if (i > 0) times.push(ms); // the first load warms the server (bundle built on first use), not the browser
  }
  return times;
}

const interactive = (page: Page) => async () => {
  await page.waitForSelector('html[data-ready="true"]', { state: 'attached', timeout: 30_000 });
  return page.evaluate(() => performance.getEntriesByName('tapeline:interactive')[0]!.startTime);
};

async function main() {
  execFileSync('bash', [path.join(here, '../test/browser/ensure-chromium.sh')], { stdio: 'inherit' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-webui-'));
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_webui' });
  await migrate(store);
  const api = await startBenchApi(store, dir, { readCache: true });
  const reference = http.createServer((_request, response) => {
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>reference</title></head><body><h1>Static page</h1><p>No scripts.</p></body></html>',
      );
  });
  await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve));
  const referenceUrl = `http://127.0.0.1:${(reference.address() as AddressInfo).port}/`;
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    const referenceLoads = await coldLoads(page, referenceUrl, () =>
      page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd),
    );
    const firstPage = await coldLoads(page, `${api.base}/app`, interactive(page));
    const u = new URL(api.base);
    await browser.context.addCookies([
      { name: 'tapeline_session', value: api.key, domain: u.hostname, path: '/', httpOnly: true, sameSite: 'Strict' },
    ]);
    const marketsPage = await coldLoads(page, `${api.base}/app/markets`, interactive(page));

    const bundle = await buildBundle();
    const first = firstPageBytes(bundle);
    const chunks = Object.fromEntries(
      [...bundle.assets]
        .filter(([name]) => name.endsWith('.js') || name.endsWith('.css'))
        .map(([name, a]) => [name, { bytes: a.body.length, gzip_bytes: a.gzip.length }]),
    );
    const js = [...bundle.assets].filter(([name]) => name.endsWith('.js'));
    const referenceP50 = quantile(referenceLoads, 0.5);
    const result = {
      benchmark: 'webui',
      what: 'time to interactive of /app pages in headless Chromium on loopback, cold cache, vs a static page without scripts; bundle sizes',
      runs: RUNS,
      chromium: execFileSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', ['--version'])
        .toString()
        .trim(),
      budget_first_page_interactive_ms: BUDGET_MS,
      first_page: {
        url: '/app (signed out: developer sign-up)',
        ...summary(firstPage),
        ratio_to_reference_p50: round(quantile(firstPage, 0.5) / referenceP50),
      },
      signed_in_markets_page: {
        url: '/app/markets (session, access report and market list from /v1)',
        ...summary(marketsPage),
        ratio_to_reference_p50: round(quantile(marketsPage, 0.5) / referenceP50),
      },
      reference_static_page: { what: 'load event of a static HTML page from a bare node:http server', ...summary(referenceLoads) },
      within_budget: quantile(firstPage, 0.9) < BUDGET_MS,
      bundle: {
        first_page_js_bytes: first.js,
        first_page_js_gzip_bytes: first.js_gzip,
        first_page_css_bytes: first.css,
        first_page_css_gzip_bytes: first.css_gzip,
        all_js_bytes: js.reduce((n, [, a]) => n + a.body.length, 0),
        all_js_gzip_bytes: js.reduce((n, [, a]) => n + a.gzip.length, 0),
        build_ms: bundle.builtInMs,
        files: chunks,
      },
      measured_at: new Date().toISOString(),
    };
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    fs.writeFileSync(path.join(here, 'results', 'webui.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => reference.close(() => resolve()));
    await api.close();
    await store.close();
  }
}

await main();
