/**
 * The demo service (`npm run demo`: the whole stack against the bundled simulator) as a child
 * process on a free port with a fresh data folder, for client tests that talk to it as users do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getJson, postJson, waitFor } from './http.js';
import { type Child, freePort, runAdminCli, startChild } from './processes.js';

export interface Demo {
  /** The API root, e.g. http://127.0.0.1:41234/v1 */
  apiBase: string;
  dataDir: string;
  child: Child;
  /** A self-registered sandbox agent key (Tier 1 analytics, no Tier 2). */
  sandboxKey: string;
  /** A Tier 2 key from the admin CLI. */
  tier2Key: string;
  /** An active market with trades, candles and an order book indexed. */
  market: { id: string; slug: string };
  stop(): Promise<void>;
}

/** `readyMs`: how long the demo may take to serve a market with trades and candles (a large population takes longer). */
export async function startDemo(env: Record<string, string> = {}, readyMs = 90_000): Promise<Demo> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-clients-demo-'));
  const child = startChild('services/demo.ts', { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...env });
  await child.waitForLog((line) => line.msg === 'tapeline is serving', readyMs);
  const apiBase = `http://127.0.0.1:${port}/v1`;
  const sandboxKey = (await postJson(`${apiBase}/agents/register`, { name: 'client-tests' })).body.data.api_key as string;
  const tier2Key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2'])).api_key as string;
  const market = await waitFor(
    async () => {
      const { body } = await getJson(`${apiBase}/markets?status=active&sort=volume&limit=5`, tier2Key);
      for (const candidate of body.data ?? []) {
        const trades = await getJson(`${apiBase}/markets/${candidate.id}/trades?limit=1`, tier2Key);
        const candles = await getJson(`${apiBase}/markets/${candidate.id}/ohlcv?interval=1h&limit=1`, tier2Key);
        if (trades.body.data?.length > 0 && candles.body.data?.length > 0)
          return { id: candidate.id as string, slug: candidate.slug as string };
      }
      return null;
    },
    readyMs,
    'an active market with trades, candles and a book',
    500,
  );
  return {
    apiBase,
    dataDir,
    child,
    sandboxKey,
    tier2Key,
    market,
    async stop() {
      await child.kill('SIGTERM');
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
