/**
 * `npm run verify`: holds the service's trader figures to accounting identities over the whole
 * population of wallets and, on a demo, to the simulator's own accounting (docs/VERIFY.md).
 *
 *   npm run verify -- --api http://127.0.0.1:8080/v1 --key <Tier 2 key> [--data-dir ./data-demo] [--truth <url>] [--out <dir>]
 *
 * Reads only the API and the truth URL (given, or from <data-dir>/simulator-truth.json, which the demo
 * writes); never the store, so it runs against a production API too (then without the truth checks).
 * Prints a table, writes <out>/verify-last.json (out: --out, else --data-dir, else DATA_DIR) and exits
 * 1 on any violation, 2 when it could not run.
 */
import { parseArgs } from 'node:util';
import { readTruthEndpoint } from '../../simulator/truth-endpoint.js';
import { agreesWithTruth, runChecks } from './checks.js';
import { collect } from './collect.js';
import { BoundedHttp } from './http.js';
import { lastRun, table, toleranceNotes, writeLastRun } from './report.js';
import { ServiceApi, SimulatorTruthApi } from './sources.js';

const USAGE =
  'usage: npm run verify -- --api <url of /v1> --key <Tier 2 key> [--data-dir <dir>] [--truth <url>] [--out <dir>] [--concurrency 8] [--max-pages 200] [--days 30]';

function fail(message: string): never {
  console.error(`verify: ${message}`);
  process.exit(2);
}

function parseOptions() {
  try {
    return parseArgs({
      options: {
        api: { type: 'string' },
        key: { type: 'string' },
        truth: { type: 'string' },
        'data-dir': { type: 'string' },
        out: { type: 'string' },
        concurrency: { type: 'string', default: '8' },
        'max-pages': { type: 'string', default: '200' },
        days: { type: 'string', default: '30' },
      },
    });
  } catch (error) {
    // An unknown or valueless option is the caller's mistake: one line and the usage, not a stack trace.
    return fail(`${(error as Error).message}\n${USAGE}`);
  }
}

const { values } = parseOptions();

const apiBase = values.api ?? process.env.VERIFY_API_URL ?? 'http://127.0.0.1:8080/v1';
const key = values.key ?? process.env.VERIFY_API_KEY ?? fail('a Tier 2 API key is needed: --key or VERIFY_API_KEY');
const dataDir = values['data-dir'] ?? process.env.DATA_DIR;
const truthUrl = values.truth ?? process.env.SIM_TRUTH_URL ?? (dataDir ? readTruthEndpoint(dataDir)?.truth_url : undefined);
const outDir = values.out ?? dataDir;
const positive = (name: string, text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a positive integer`);
  return n;
};
const concurrency = positive('concurrency', values.concurrency);
const maxPages = positive('max-pages', values['max-pages']);
const days = positive('days', values.days);

const started = Date.now();
const http = new BoundedHttp({ concurrency, timeoutMs: 30_000, attempts: 6 });
const api = new ServiceApi(http, apiBase, key);
const truth = truthUrl ? new SimulatorTruthApi(http, truthUrl.replace(/\/$/, '')) : null;
try {
  if (!(await api.health())) fail(`${apiBase}/health did not answer`);
  const population = await collect(api, truth, {
    maxPages,
    concurrency,
    curveDays: days,
    readAttempts: 5,
    settleMs: 1_000,
    agrees: agreesWithTruth,
  });
  const results = runChecks(population, truth !== null);
  const run = lastRun(results, truth !== null, population.wallets.length, Date.now() - started);
  console.log(
    `verify: ${population.wallets.length} wallets read of ${population.listed.union} listed (board ${population.listed.board}, truth ${population.listed.truth}${population.listed.truncated ? ', listing truncated at --max-pages' : ''}); ${population.unread.length} unread; ${population.wallets.filter((w) => w.movedTo).length} moved while read (held between their truths), ${population.wallets.filter((w) => !w.movedTo && w.reads > 1).length} read again until still and agreeing; truth ${truthUrl ?? 'none'}; ${http.requests} requests in ${Math.round(run.duration_ms / 1000)} s`,
  );
  for (const { wallet, detail } of population.unread.slice(0, 5)) console.log(`  unread ${wallet}: ${detail}`);
  console.log(table(results));
  console.log(`tolerances:\n${toleranceNotes(results)}`);
  if (population.unread.length > 0) run.ok = false;
  if (outDir) console.log(`verify: wrote ${writeLastRun(outDir, run)}`);
  console.log(`verify: ${run.ok ? 'OK' : 'VIOLATIONS'}`);
  process.exit(run.ok ? 0 : 1);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
