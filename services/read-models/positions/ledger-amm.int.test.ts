/**
 * Legacy AMM trades in the position ledger: FPMMBuy/FPMMSell logs (encoded with viem from the FPMM ABI)
 * through the chain source's decoder and event building, then the ledger, as the service runs them.
 * Figures by hand (USDC):
 * - A invests 51.50 for 120 NO, the pool keeping a 1.03 fee: cost 50.47, fee 1.03.
 * - A sells 20 NO for a return of 11.76 after a 0.24 fee: proceeds 12.00; the 20 leave at
 *   50.47 x 20 / 120 = 8.411667 (half up), so realized 3.588333 and 100 NO left costing 42.058333.
 * - NO wins; A redeems 100: realized 100 - 42.058333 = 57.941667, 61.53 in all = the cash A paid and
 *   received (-51.50 + 11.76 + 100) plus the fees (1.27): PnL is before fees, fees are served apart.
 */
import type { ChainLog } from '../../ports/chain-reader.js';
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, getAbiItem, type Hex } from 'viem';
import { fpmmAbi } from '../../chain/abis.js';
import { ChainCatalog } from '../../chain/catalog.js';
import { ContractBook } from '../../chain/contract-book.js';
import { toLedgerEvent } from '../../chain/ledger-events.js';
import { NegRiskBook } from '../../chain/neg-risk-book.js';
import { interpretLogs } from '../../chain/settlement-records.js';
import { loadConfig } from '../../config.js';
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import { chainResolution, marketUpserted, outcomeToken } from '../../../test/support/events.js';
import { chainRedemption, collateralByWallet, ledgerFigures } from '../../../test/support/ledger-builders.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';
import { walletReports } from '../trader-stats/queries.js';

const C = loadConfig({}).chain.contracts;
const T = Date.UTC(2021, 5, 1, 12);
const MARKET = `0x${'5'.repeat(64)}`;
const POOL = '0x00000000000000000000000000000000000f9a11';
const A = `0x${'a'.repeat(40)}`;
const NO = outcomeToken(MARKET, 1);
const market = marketUpserted({
  event_id: `${MARKET}:1`,
  market_id: MARKET,
  outcome_token_ids: [outcomeToken(MARKET, 0), NO],
  status: 'resolved',
  resolved_outcome: 'No',
  outcome_prices: [0, 1],
  accepting_orders: false,
  market_maker_address: POOL,
});

let h: ProjectionHarness;
let ledger: PositionLedger;
let block = 15_000_000;

/** One FPMM log in its own block, through interpretLogs and toLedgerEvent as the chain source runs them. */
function ammEvent(eventName: 'FPMMBuy' | 'FPMMSell', args: Record<string, unknown>, at: number): ChainLedgerEvent {
  block += 1;
  const event = getAbiItem({ abi: fpmmAbi, name: eventName }) as AbiEvent;
  const indexed = Object.fromEntries(event.inputs.filter((i) => i.indexed).map((i) => [i.name, args[i.name as string]]));
  const data = event.inputs.filter((i) => !i.indexed);
  const log: ChainLog = {
    address: POOL,
    topics: (encodeEventTopics({ abi: [event], eventName, args: indexed } as never) as Hex[]).map((t) => t.toLowerCase()),
    data: encodeAbiParameters(
      data,
      data.map((i) => args[i.name as string]),
    ),
    blockNumber: BigInt(block),
    blockHash: `0x${block.toString(16).padStart(64, '0')}`,
    transactionHash: `0x${block.toString(16).padStart(64, 'e')}`,
    logIndex: 3,
    removed: false,
  };
  const catalog = new ChainCatalog();
  catalog.add([market]);
  const { records, rejected } = interpretLogs([log], new Map([[block, at]]), new ContractBook(C, { marketMakers: catalog }));
  expect(rejected).toEqual([]);
  const [record] = records;
  if (record?.kind !== 'fill') throw new Error(`expected a fill, got ${record?.kind}`);
  const context = { chainId: 137, source: 'polymarket' as const, nowMs: at, negRiskAdapter: C.negRiskAdapter.address };
  const outcome = toLedgerEvent(record, catalog, context, new NegRiskBook(C.negRiskAdapter.address));
  if (outcome.status !== 'ready') throw new Error(JSON.stringify(outcome));
  return outcome.event;
}

beforeAll(async () => {
  h = await projectionHarness('ledger-amm');
  await h.given({
    markets: [market],
    chainResolutions: [chainResolution({ market_id: MARKET, payout_numerators: ['0', '1'], payouts: [0, 1], winning_outcome_index: 1 })],
  });
  ledger = new PositionLedger(h.store);
}, 120_000);
afterAll(() => h.close());

test('AMM buys and sells are booked as fills: cost and proceeds before the pool fee, the fee apart, redeemed against that cost', async () => {
  const events = [
    ammEvent(
      'FPMMBuy',
      { buyer: A, investmentAmount: 51_500_000n, feeAmount: 1_030_000n, outcomeIndex: 1n, outcomeTokensBought: 120_000_000n },
      T,
    ),
    ammEvent(
      'FPMMSell',
      { seller: A, returnAmount: 11_760_000n, feeAmount: 240_000n, outcomeIndex: 1n, outcomeTokensSold: 20_000_000n },
      T + 60_000,
    ),
  ];
  await ledger.apply(events.map(fromChain).filter((e): e is LedgerEvent => e !== null));
  expect((await ledgerFigures(h.store, A)).byToken[NO]).toEqual({ qty: 100, realized: 3.588333, cost: 42.058333, fees: 1.27 });
  const rows = await h.rows<{ kind: string; role: string }>(
    'SELECT kind, role FROM position_ledger WHERE wallet = {wallet:String} AND sign = 1 ORDER BY rev',
    {
      wallet: A,
    },
  );
  expect(rows).toEqual([
    { kind: 'fill', role: 'amm' },
    { kind: 'fill', role: 'amm' },
  ]);

  const redemption = chainRedemption({ tx: 90_001, block: block + 1, at: T + 120_000, wallet: A, market: MARKET, paid: 100 });
  await ledger.apply([fromChain(redemption)].filter((e): e is LedgerEvent => e !== null));
  const { reports } = await walletReports(h.store, [A], { nowMs: T + 200_000, curveDays: 0 });
  const { data, report } = reports.get(A)!;
  expect({ realized: report.realized, won: report.won, lost: report.lost }).toEqual({ realized: 61_530_000n, won: 1, lost: 0 });
  expect({ volume: data.totals.volume, trades: data.totals.trades, fees: data.totals.fees }).toEqual({
    volume: 62_470_000n,
    trades: 2,
    fees: 1_270_000n,
  });
  // realized + basis left = the collateral before fees the events paid and received (-50.47 + 12.00 + 100).
  expect(collateralByWallet([...events, redemption]).get(A)).toBe(61_530_000n);
});
