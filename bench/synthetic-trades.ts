/** Seeded synthetic trades for benchmarks, labelled source "simulator" like all generated data. */
import type { TradeExecuted } from '../services/events/types.js';

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function syntheticTrades(count: number, markets = 300, seed = 7, endMs = Date.UTC(2026, 10, 1)): TradeExecuted[] {
  const random = mulberry32(seed);
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const spanMs = 30 * 86_400_000;
  return Array.from({ length: count }, (_, i) => {
    const market = Math.floor(random() ** 2 * markets);
    const price = Math.round((0.02 + random() * 0.96) * 1000) / 1000;
    const size = Math.round((1 + random() * 500) * 100) / 100;
    const yes = random() < 0.6;
    const at = endMs - spanMs + Math.floor((i / count) * spanMs);
    return {
      event_id: hex(i, 32),
      source: 'simulator',
      market_id: `0x${hex(market, 64)}`,
      market_title: `Synthetic market ${market}`,
      asset_id: String(10n ** 76n + BigInt(market * 2 + (yes ? 0 : 1))),
      wallet: `0x${hex(Math.floor(random() * 5000), 40)}`,
      side: random() < 0.55 ? 'buy' : 'sell',
      outcome: yes ? 'Yes' : 'No',
      outcome_index: yes ? 0 : 1,
      price,
      yes_price: yes ? price : Math.round((1 - price) * 1000) / 1000,
      size,
      size_usdc: Math.round(size * price * 1e6) / 1e6,
      timestamp_ms: at,
      tx_hash: `0x${hex(i, 64)}`,
      ingested_at_ms: at + 1000,
    };
  });
}
