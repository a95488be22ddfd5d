/**
 * TypeScript SDK overhead per call as a ratio to a bare `fetch` + `JSON.parse` of the same endpoint
 * (goal <= 1.2), measured in the same run: medians of calls alternated one by one, so background
 * load hits both sides alike. Two servers: the demo service itself (the ratio a user sees), and a bare node:http
 * server replaying the demo's exact response bytes (isolates the SDK's own cost from the API's).
 * The Python SDK is measured the same way against a bare httpx request (bench/sdk_python.py).
 * Writes bench/results/sdk.json.
 *
 *   npm run bench:sdk        (BENCH_CALLS=400 per side per endpoint against the demo, 8x that against the replay)
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createClient } from '../clients/ts/src/index.js';
import { startDemo } from '../test/support/demo.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.env.BENCH_CALLS ?? 400);

type Endpoint = { name: string; path: string; call: (client: ReturnType<typeof createClient>) => Promise<unknown> };

async function measure(baseUrl: string, apiKey: string, endpoint: Endpoint, calls: number) {
  const client = createClient({ baseUrl, apiKey });
  const headers = { authorization: `Bearer ${apiKey}`, accept: 'application/json' };
  const bare = async () => {
    const response = await fetch(`${baseUrl}${endpoint.path}`, { headers });
    return JSON.parse(await response.text());
  };
  for (let i = 0; i < 20; i++) {
    await bare();
    await endpoint.call(client);
  }
  // Alternate call by call (background load hits both sides alike) and compare medians (robust to the
  // occasional stall of a shared 2-core machine).
  const bareTimes: number[] = [];
  const sdkTimes: number[] = [];
  for (let i = 0; i < calls; i++) {
    for (const side of i % 2 === 0 ? ['bare', 'sdk'] : ['sdk', 'bare']) {
      const start = process.hrtime.bigint();
      if (side === 'bare') await bare();
      else await endpoint.call(client);
      (side === 'bare' ? bareTimes : sdkTimes).push(Number(process.hrtime.bigint() - start) / 1000);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const n = calls;
  const bareUs = median(bareTimes);
  const sdkUs = median(sdkTimes);
  return {
    calls: n,
    bare_fetch_median_us: Math.round(bareUs),
    sdk_median_us: Math.round(sdkUs),
    ratio: Number((sdkUs / bareUs).toFixed(3)),
  };
}

/** Runs bench/sdk_python.py in the repo-local venv; asynchronously, so this process keeps serving the replay. */
async function runPython(base: string, key: string, market: string, calls: number): Promise<Record<string, { ratio: number }>> {
  const venv = execFileSync('bash', [path.join(here, '../clients/python/venv.sh')], { encoding: 'utf8' }).trim();
  const { stdout } = await promisify(execFile)(
    path.join(venv, 'bin/python'),
    [path.join(here, 'sdk_python.py'), base, key, market, String(calls)],
    {
      encoding: 'utf8',
    },
  );
  return JSON.parse(stdout);
}

async function main() {
  // Generous limits: the benchmark measures the client, not the rate limiter.
  const demo = await startDemo({ RATE_TIER2_PER_SECOND: '100000', QUOTA_TIER2_PER_DAY: '100000000' });
  try {
    const endpoints: Endpoint[] = [
      { name: 'GET /markets/{id}', path: `/markets/${demo.market.id}`, call: (c) => c.getMarket({ id: demo.market.id }) },
      { name: 'GET /markets?limit=50', path: '/markets?limit=50', call: (c) => c.listMarkets({ limit: 50 }) },
      { name: 'GET /trades?limit=100', path: '/trades?limit=100', call: (c) => c.listTrades({ limit: 100 }) },
    ];
    // Replay: the demo's exact bytes per path from a server that does nothing else.
    const bodies = new Map<string, Buffer>();
    for (const endpoint of endpoints) {
      const response = await fetch(`${demo.apiBase}${endpoint.path}`, { headers: { authorization: `Bearer ${demo.tier2Key}` } });
      bodies.set(`/v1${endpoint.path}`, Buffer.from(await response.text()));
    }
    const replay = http.createServer((request, response) => {
      const body = bodies.get(request.url ?? '');
      if (!body) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      response.end(body);
    });
    await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
    const replayBase = `http://127.0.0.1:${(replay.address() as AddressInfo).port}/v1`;

    const typescript: Record<string, { response_bytes: number; against_demo: { ratio: number }; against_byte_replay: { ratio: number } }> =
      {};
    for (const endpoint of endpoints) {
      const live = await measure(demo.apiBase, demo.tier2Key, endpoint, CALLS);
      const isolated = await measure(replayBase, demo.tier2Key, endpoint, CALLS * 4);
      typescript[endpoint.name] = {
        response_bytes: bodies.get(`/v1${endpoint.path}`)!.length,
        against_demo: live,
        against_byte_replay: isolated,
      };
      console.log('ts', endpoint.name, JSON.stringify(typescript[endpoint.name]));
    }
    // The Python SDK (pydantic models, Decimal numbers) vs a bare httpx GET + .json(), in the repo-local venv.
    const python = {
      against_demo: await runPython(demo.apiBase, demo.tier2Key, demo.market.id, CALLS),
      against_byte_replay: await runPython(replayBase, demo.tier2Key, demo.market.id, CALLS * 2),
    };
    console.log('python', JSON.stringify(python));
    await new Promise((resolve) => replay.close(resolve));

    const ratios = Object.values(typescript).flatMap((r) => [r.against_demo.ratio, r.against_byte_replay.ratio]);
    const output = {
      benchmark: 'sdk',
      what: 'SDK time per call / a bare request + JSON parse of the same endpoint (TS: fetch + JSON.parse; Python: httpx + .json()); medians, calls alternated one by one, same run',
      goal_ratio_max: 1.2,
      typescript_max_ratio: Math.max(...ratios),
      node: process.version,
      measured_at: new Date().toISOString(),
      typescript,
      python,
    };
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    fs.writeFileSync(path.join(here, 'results/sdk.json'), `${JSON.stringify(output, null, 2)}\n`);
    console.log(`TypeScript max ratio ${output.typescript_max_ratio} (goal <= 1.2); wrote bench/results/sdk.json`);
  } finally {
    await demo.stop();
  }
}

await main();
