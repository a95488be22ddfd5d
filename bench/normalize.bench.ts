/**
 * Normalized events/s for a recorded-shape stream, as a ratio to JSON.parse of the same bytes in the
 * same run. The stream is built from ../shared/upstream-samples (read in place): websocket book +
 * price_change burst frames, Data API trades and Gamma markets, repeated to ~20 MB of lines.
 * Writes bench/results/normalize.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeWsMarketMessage, wsFrameMessages } from '../services/ingest/normalize-clob.js';
import { normalizeGammaMarket } from '../services/ingest/normalize-market.js';
import { normalizeDataTrade } from '../services/ingest/normalize-trade.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const samples = path.resolve(here, '../../shared/upstream-samples');
const read = (file: string) => fs.readFileSync(path.join(samples, file), 'utf8');

type Kind = 'ws' | 'trade' | 'market';
const lines: Array<{ kind: Kind; text: string }> = [
  ...read('ws/market_book_then_price_change_burst_part1.ndjson')
    .split('\n')
    .filter(Boolean)
    .map((text) => ({ kind: 'ws' as const, text })),
  ...(JSON.parse(read('data/trades_recent_mixed_markets.json')) as unknown[]).map((t) => ({
    kind: 'trade' as const,
    text: JSON.stringify(t),
  })),
  ...read('gamma/markets_resolved_btc_updown_5m_2026-07-24.ndjson')
    .split('\n')
    .filter(Boolean)
    .map((text) => ({ kind: 'market' as const, text })),
];
const TARGET_BYTES = 20_000_000;
const stream: typeof lines = [];
let bytes = 0;
while (bytes < TARGET_BYTES) {
  for (const line of lines) {
    stream.push(line);
    bytes += line.text.length;
  }
}

function parseOnly(): number {
  let n = 0;
  for (const line of stream) if (JSON.parse(line.text)) n++;
  return n;
}

function parseAndNormalize(): number {
  let events = 0;
  const now = Date.now();
  for (const line of stream) {
    const raw = JSON.parse(line.text);
    if (line.kind === 'ws') {
      for (const m of wsFrameMessages(raw)) {
        const r = normalizeWsMarketMessage(m, 'polymarket', now);
        if (r.ok) events += r.value.type === 'price_change' ? r.value.deltas.length : 1;
      }
    } else if (line.kind === 'trade') {
      if (normalizeDataTrade(raw, 'polymarket', now).ok) events++;
    } else if (normalizeGammaMarket(raw, 'polymarket', now).ok) events++;
  }
  return events;
}

function best(run: () => number, rounds = 3): { ms: number; count: number } {
  let ms = Infinity;
  let count = 0;
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    count = run();
    ms = Math.min(ms, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { ms, count };
}

best(parseOnly, 1); // warm-up
best(parseAndNormalize, 1);
const parse = best(parseOnly);
const normalize = best(parseAndNormalize);
const result = {
  bench: 'normalize',
  stream_bytes: bytes,
  stream_lines: stream.length,
  json_parse_ms: Math.round(parse.ms),
  parse_and_normalize_ms: Math.round(normalize.ms),
  normalized_events: normalize.count,
  normalized_events_per_s: Math.round(normalize.count / (normalize.ms / 1000)),
  json_parse_mb_per_s: Math.round(bytes / 1e6 / (parse.ms / 1000)),
  // >1 would be impossible: normalizing includes the parse. The ratio says what share of raw JSON.parse speed survives.
  throughput_ratio_vs_json_parse: Number((parse.ms / normalize.ms).toFixed(3)),
  node: process.version,
  at: new Date().toISOString(),
};
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'normalize.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(result);
