/**
 * The embedded service starts, answers and stops under the Node.js running this test: the Node
 * version tiers (test/node-versions/run-on.mjs) run it under each supported major, so the native and
 * WebAssembly engines (chDB's addon, PGlite) are loaded by that Node. Upstreams point at a closed port
 * on 127.0.0.1: the service runs offline, as `npm start` without a network would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getJson, postJson } from '../support/http.js';
import { closedUpstreams, freePort, startChild, type Child } from '../support/processes.js';

let service: Child | undefined;
let dataDir: string;

afterAll(async () => {
  await service?.kill('SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test(`the embedded service serves /v1 and stops on SIGTERM under Node ${process.version}`, async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-smoke-'));
  const closed = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  service = startChild('services/main.ts', {
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(await freePort()),
    ...closedUpstreams(closed),
  });
  await service.waitForLog((line) => line.msg === 'tapeline is serving', 90_000);

  // PGlite issues the key; chDB answers the health counts and the market list.
  const registered = await postJson(`${base}/v1/developers/register`, { name: 'smoke', email: 'smoke@example.org' });
  expect(registered.status).toBe(201);
  const key = registered.body.data.api_key as string;
  const health = await getJson(`${base}/v1/health`, key);
  expect(health.status).toBe(200);
  expect(health.body.data.counts).toEqual(expect.objectContaining({ markets: 0, trades: 0 }));
  const markets = await getJson(`${base}/v1/markets?status=all`, key);
  expect(markets.status).toBe(200);
  expect(markets.body.data).toEqual([]);

  const stopping = Date.now();
  const exited = new Promise<number | null>((resolve) => service!.process.once('exit', (code) => resolve(code)));
  await service.kill('SIGTERM');
  expect(await exited).toBe(0);
  // The first-hour goal is 5 s; the bound leaves room for a machine loaded by other tiers.
  expect(Date.now() - stopping).toBeLessThan(15_000);
  // A clean stop releases the data folder's lock (a killed process leaves it behind).
  expect(fs.existsSync(path.join(dataDir, 'tapeline.lock'))).toBe(false);
}, 180_000);
