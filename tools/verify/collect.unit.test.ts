/**
 * How the verifier reads a live system: a still wallet the service has not caught up with yet is read
 * again until it agrees (and counted), or is a violation at the last read; a wallet that moves between
 * the service's data_as_of and the read is held between its two truths.
 */
import { agreesWithTruth, againstTruth } from './checks.js';
import { collect } from './collect.js';
import type { ApiCurve, ApiPositions, ApiTrader, ServiceApi, SimulatorTruthApi, TruthWallet } from './sources.js';

const WALLET = '0xa';
const truthWith = (won: number, trades: number) =>
  ({
    address: WALLET,
    cash_paid_micro: '0',
    cash_received_micro: '0',
    transfer_out_cost_micro: '0',
    transfer_in_cost_micro: '0',
    realized_micro: '0',
    volume_micro: '0',
    trades,
    markets_traded: 0,
    fees_micro: '0',
    won,
    lost: 0,
    realized_by_day: [],
    tokens: [],
    markets: [],
  }) as unknown as TruthWallet;
const traderWith = (won: number, trades: number) =>
  ({
    data_as_of: '2026-12-01T00:00:00.000Z',
    lifetime: { total_realized_pnl: 0, volume_usdc: 0, trades, markets_traded: 0, fees_paid_usdc: 0, won, lost: 0 },
  }) as unknown as ApiTrader;

/** An API serving `served[i]` at the i-th read (the last one after), and a truth at data_as_of and now. */
function sources(served: Array<{ won: number; trades: number }>, atAsOf: TruthWallet, now: TruthWallet) {
  let reads = 0;
  const api = {
    pages: async () => ({ items: [{ wallet: WALLET }], truncated: false }),
    trader: async () => {
      const figures = served[Math.min(reads++, served.length - 1)]!;
      return traderWith(figures.won, figures.trades);
    },
    positions: async () => ({ data_as_of: '2026-12-01T00:00:00.000Z', positions: [] }) as unknown as ApiPositions,
    curve: async () => ({ data_as_of: '2026-12-01T00:00:00.000Z', points: [] }) as unknown as ApiCurve,
  } as unknown as ServiceApi;
  const truth = {
    wallets: async () => ({ addresses: [WALLET], truncated: false }),
    wallet: async (_address: string, through?: string) => (through === undefined ? now : atAsOf),
  } as unknown as SimulatorTruthApi;
  return { api, truth };
}
const options = { maxPages: 1, concurrency: 1, curveDays: 1, readAttempts: 3, settleMs: 1, agrees: agreesWithTruth };

test('a still wallet behind its truth is read again until it agrees', async () => {
  const { api, truth } = sources(
    [
      { won: 0, trades: 3 },
      { won: 1, trades: 3 },
    ],
    truthWith(1, 3),
    truthWith(1, 3),
  );
  const [read] = (await collect(api, truth, options)).wallets;
  expect(read).toMatchObject({ reads: 2 });
  expect(read!.movedTo).toBeUndefined();
  expect(
    againstTruth({ wallets: [read!], unread: [], listed: { board: 1, truth: 1, union: 1, truncated: false } }, true).every(
      (r) => r.violations === 0,
    ),
  ).toBe(true);
});

test('a still wallet that never agrees is a violation at the last read', async () => {
  const { api, truth } = sources([{ won: 0, trades: 3 }], truthWith(1, 3), truthWith(1, 3));
  const population = await collect(api, truth, options);
  expect(population.wallets[0]).toMatchObject({ reads: 3 });
  expect(againstTruth(population, true).find((r) => r.id === '4 won')).toMatchObject({ checked: 1, violations: 1 });
});

test('a wallet moving at every read is held between its truths', async () => {
  const { api, truth } = sources([{ won: 0, trades: 4 }], truthWith(0, 3), truthWith(1, 5));
  const population = await collect(api, truth, options);
  expect(population.wallets[0]).toMatchObject({ reads: 3, movedTo: truthWith(1, 5) });
  expect(againstTruth(population, true).filter((r) => r.violations > 0)).toEqual([]);
});

test('a still wallet whose market resolved since its data_as_of keeps its exact checks; won and lost are held between', async () => {
  const { api, truth } = sources([{ won: 1, trades: 3 }], truthWith(0, 3), truthWith(1, 3));
  const population = await collect(api, truth, options);
  expect(population.wallets[0]).toMatchObject({ reads: 1, resolvedTo: truthWith(1, 3) });
  expect(population.wallets[0]!.movedTo).toBeUndefined();
  const results = againstTruth(population, true);
  expect(results.filter((r) => r.violations > 0)).toEqual([]);
  expect(results.find((r) => r.id === '4 realized')).toMatchObject({ checked: 1 });
});

test('answers past their data_as_of that agree exactly with the truth now are held to it', async () => {
  const { api, truth } = sources([{ won: 0, trades: 5 }], truthWith(0, 3), truthWith(0, 5));
  const population = await collect(api, truth, options);
  expect(population.wallets[0]).toMatchObject({ reads: 1, truth: truthWith(0, 5) });
  expect(population.wallets[0]!.movedTo).toBeUndefined();
  expect(againstTruth(population, true).find((r) => r.id === '4 realized')).toMatchObject({ checked: 1, violations: 0 });
});
