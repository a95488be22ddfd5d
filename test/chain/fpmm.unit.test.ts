/**
 * The legacy AMM (Gnosis FixedProductMarketMaker, Polymarket's 2020-2022 markets): FPMMBuy/FPMMSell
 * logs encoded with viem from the event signatures as gnosis/conditional-tokens-market-makers declares
 * them (declared here again, apart from services/chain/abis.ts), read as fills of role `amm`, their CTF
 * legs skipped, liquidity dead-lettered with its reason. The market is a recorded Gamma sample given a
 * marketMakerAddress (Gamma sends one for every AMM market).
 */
import fs from 'node:fs';
import {
  type Abi,
  type AbiEvent,
  encodeAbiParameters,
  encodeEventTopics,
  getAbiItem,
  type Hex,
  parseAbi,
  toEventSelector,
  zeroHash,
} from 'viem';
import { conditionalTokensAbi, TOPIC0 } from '../../services/chain/abis.js';
import { ChainCatalog } from '../../services/chain/catalog.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { toLedgerEvent } from '../../services/chain/ledger-events.js';
import { NegRiskBook } from '../../services/chain/neg-risk-book.js';
import { interpretLogs, type SettlementRecord } from '../../services/chain/settlement-records.js';
import { loadConfig } from '../../services/config.js';
import type { ChainLedgerEvent } from '../../services/events/types.js';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import type { ChainLog } from '../../services/ports/chain-reader.js';
import { readSample } from '../support/shared-samples.js';

/** contracts/FixedProductMarketMaker.sol (gnosis/conditional-tokens-market-makers, commit 6814c02), lines 21-45. */
const SOURCE = parseAbi([
  'event FPMMFundingAdded(address indexed funder, uint[] amountsAdded, uint sharesMinted)',
  'event FPMMFundingRemoved(address indexed funder, uint[] amountsRemoved, uint collateralRemovedFromFeePool, uint sharesBurnt)',
  'event FPMMBuy(address indexed buyer, uint investmentAmount, uint feeAmount, uint indexed outcomeIndex, uint outcomeTokensBought)',
  'event FPMMSell(address indexed seller, uint returnAmount, uint feeAmount, uint indexed outcomeIndex, uint outcomeTokensSold)',
]);

/**
 * keccak256 of the canonical signatures, as Polymarket's PnL subgraph subscribes to them
 * (pnl-subgraph/subgraph.template.yaml: `FPMMBuy(indexed address,uint256,uint256,indexed uint256,uint256)`, ...).
 */
const SOURCE_TOPICS = {
  FPMMBuy: '0x4f62630f51608fc8a7603a9391a5101e58bd7c276139366fc107dc3b67c3dcf8',
  FPMMSell: '0xadcf2a240ed9300d681d9a3f5382b6c1beed1b7e46643e0c7b42cbe6e2d766b4',
  FPMMFundingAdded: '0xec2dc3e5a3bb9aa0a1deb905d2bd23640d07f107e6ceb484024501aad964a951',
  FPMMFundingRemoved: '0x8b4b2c8ebd04c47fc8bce136a85df9b93fcb1f47c8aa296457d4391519d190e7',
} as const;

const config = loadConfig({});
const C = config.chain.contracts;
const POOL = '0x9b2a1f4ed1e18e2d0fd2e6c6b4b0b3f8c0a1d2e3';
const BUYER = '0x1111111111111111111111111111111111111111';
const LP = '0x3333333333333333333333333333333333333333';
const BLOCK = 12_000_000;
const BLOCK_HASH = `0x${'b'.repeat(64)}`;
const TIME_MS = Date.UTC(2021, 2, 1, 12, 0, 0);
const TX = `0x${'a'.repeat(64)}`;

const sample = normalizeGammaMarket(readSample('gamma/market_open_ceasefire_before_gta6.json'), 'polymarket', TIME_MS);
if (!sample.ok) throw new Error(sample.reason);
const market = { ...sample.value, market_maker_address: POOL };
const [YES, NO] = market.outcome_token_ids as [string, string];

let logIndex = 0;
function log(address: string, abi: Abi, eventName: string, args: Record<string, unknown>): ChainLog {
  const event = getAbiItem({ abi, name: eventName }) as AbiEvent;
  const indexed = Object.fromEntries(event.inputs.filter((i) => i.indexed).map((i) => [i.name, args[i.name as string]]));
  const topics = encodeEventTopics({ abi: [event], eventName, args: indexed } as never) as Hex[];
  const dataInputs = event.inputs.filter((i) => !i.indexed);
  return {
    address,
    topics: topics.map((t) => t.toLowerCase()),
    data: encodeAbiParameters(
      dataInputs,
      dataInputs.map((i) => args[i.name as string]),
    ).toLowerCase(),
    blockNumber: BigInt(BLOCK),
    blockHash: BLOCK_HASH,
    transactionHash: TX,
    logIndex: logIndex++,
    removed: false,
  };
}

function setup(known = true) {
  const catalog = new ChainCatalog();
  if (known) catalog.add([market]);
  const book = new ContractBook(C, { marketMakers: catalog });
  return { catalog, book };
}

const context = { chainId: 137, source: 'polymarket' as const, nowMs: TIME_MS, negRiskAdapter: C.negRiskAdapter.address };

function read(logs: ChainLog[], known = true) {
  const { catalog, book } = setup(known);
  const interpreted = interpretLogs(logs, new Map([[BLOCK, TIME_MS]]), book);
  const events: ChainLedgerEvent[] = [];
  const rejected: string[] = interpreted.rejected.map((r) => r.reason);
  for (const record of interpreted.records) {
    if (record.kind === 'resolution' || record.kind === 'prepared') continue;
    const outcome = toLedgerEvent(
      record as Exclude<SettlementRecord, { kind: 'resolution' | 'prepared' }>,
      catalog,
      context,
      new NegRiskBook(C.negRiskAdapter.address),
    );
    if (outcome.status === 'ready') events.push(outcome.event);
    else if (outcome.status === 'rejected') rejected.push(outcome.reason);
    else throw new Error(JSON.stringify(outcome));
  }
  return { events, rejected, records: interpreted.records };
}

/** What FixedProductMarketMaker.buy emits, in order: its split of the investment less the fee, the tokens to the buyer, FPMMBuy. */
function buyTransaction(args: { investment: bigint; fee: bigint; outcomeIndex: bigint; tokens: bigint }): ChainLog[] {
  return [
    log(C.conditionalTokens.address, conditionalTokensAbi, 'PositionSplit', {
      stakeholder: POOL,
      collateralToken: C.usdcE,
      parentCollectionId: zeroHash,
      conditionId: market.market_id,
      partition: [1n, 2n],
      amount: args.investment - args.fee,
    }),
    log(C.conditionalTokens.address, conditionalTokensAbi, 'TransferSingle', {
      operator: POOL,
      from: POOL,
      to: BUYER,
      id: BigInt(args.outcomeIndex === 0n ? YES : NO),
      value: args.tokens,
    }),
    log(POOL, SOURCE, 'FPMMBuy', {
      buyer: BUYER,
      investmentAmount: args.investment,
      feeAmount: args.fee,
      outcomeIndex: args.outcomeIndex,
      outcomeTokensBought: args.tokens,
    }),
  ];
}

test('topic0 of the four FPMM events: the keccak of the source signatures, as abis.ts and docs/CHAIN.md have them', () => {
  const doc = fs.readFileSync(new URL('../../docs/CHAIN.md', import.meta.url), 'utf8');
  const ours = {
    FPMMBuy: TOPIC0.fpmmBuy,
    FPMMSell: TOPIC0.fpmmSell,
    FPMMFundingAdded: TOPIC0.fpmmFundingAdded,
    FPMMFundingRemoved: TOPIC0.fpmmFundingRemoved,
  };
  for (const [name, topic] of Object.entries(SOURCE_TOPICS)) {
    const fromSource = toEventSelector(getAbiItem({ abi: SOURCE, name: name as keyof typeof SOURCE_TOPICS }) as AbiEvent);
    expect([name, fromSource]).toEqual([name, topic]);
    expect([name, ours[name as keyof typeof ours]]).toEqual([name, topic]);
    expect([name, doc.includes(`\`${name}\` \`${topic}\``)]).toEqual([name, true]);
  }
});

test('an FPMMBuy is a fill of role amm: the investment less the fee at its price, the fee in USDC; its CTF legs are skipped', () => {
  // 51.5 USDC invested, 2 % fee (1.03) in it: 50.47 bought 120 NO.
  const { events, rejected, records } = read(
    buyTransaction({ investment: 51_500_000n, fee: 1_030_000n, outcomeIndex: 1n, tokens: 120_000_000n }),
  );
  expect(rejected).toEqual([]);
  expect(records.map((r) => r.kind)).toEqual(['fill']);
  expect(events).toHaveLength(1);
  const [buy] = events as [ChainLedgerEvent];
  expect({ kind: buy.kind, wallet: buy.wallet, market: buy.market_id, group: buy.ledger_group, contract: buy.contract }).toEqual({
    kind: 'fill',
    wallet: BUYER,
    market: market.market_id,
    group: market.market_id,
    contract: POOL,
  });
  expect(buy.fill).toEqual({
    role: 'amm',
    side: 'buy',
    asset_id: NO,
    outcome: 'No',
    outcome_index: 1,
    shares_micro: '120000000',
    usdc_micro: '50470000',
    fee_micro: '1030000',
    fee_asset: 'usdc',
    // 50.47 / 120 = 0.420583 (half up); the subgraph's price, fee inside, is 51.5 / 120.
    price: 0.420583,
    yes_price: 0.579417,
    exchange_version: 0,
    order_hash: '',
    counterparty: POOL,
  });
});

test('an FPMMSell is a fill of role amm: the return plus the fee before fees, the fee in USDC', () => {
  const sell = log(POOL, SOURCE, 'FPMMSell', {
    seller: BUYER,
    returnAmount: 29_400_000n,
    feeAmount: 600_000n,
    outcomeIndex: 0n,
    outcomeTokensSold: 50_000_000n,
  });
  const { events, rejected } = read([sell]);
  expect(rejected).toEqual([]);
  expect(events[0]?.fill).toMatchObject({
    role: 'amm',
    side: 'sell',
    asset_id: YES,
    outcome_index: 0,
    shares_micro: '50000000',
    usdc_micro: '30000000',
    fee_micro: '600000',
    fee_asset: 'usdc',
    price: 0.6,
    yes_price: 0.6,
  });
});

test('a trade of 0 tokens is no record; an outcome the market does not have and a fee above the investment are refused', () => {
  expect(read(buyTransaction({ investment: 0n, fee: 0n, outcomeIndex: 0n, tokens: 0n })).events).toEqual([]);
  const { rejected } = read([
    log(POOL, SOURCE, 'FPMMBuy', { buyer: BUYER, investmentAmount: 10n, feeAmount: 1n, outcomeIndex: 2n, outcomeTokensBought: 10n }),
    log(POOL, SOURCE, 'FPMMBuy', { buyer: BUYER, investmentAmount: 10n, feeAmount: 11n, outcomeIndex: 0n, outcomeTokensBought: 10n }),
  ]);
  expect(rejected).toEqual([
    `FPMM ${POOL}: outcome 2 is not one of its market's outcomes`,
    `FPMM ${POOL}: a buy's fee 11 exceeds its investment 10`,
  ]);
});

test('liquidity added or removed is dead-lettered with its reason, never booked', () => {
  const { events, rejected } = read([
    log(POOL, SOURCE, 'FPMMFundingAdded', { funder: LP, amountsAdded: [100_000_000n, 60_000_000n], sharesMinted: 100_000_000n }),
    log(POOL, SOURCE, 'FPMMFundingRemoved', {
      funder: LP,
      amountsRemoved: [40_000_000n, 70_000_000n],
      collateralRemovedFromFeePool: 1_200_000n,
      sharesBurnt: 50_000_000n,
    }),
  ]);
  expect(events).toEqual([]);
  expect(rejected).toEqual([
    `FPMMFundingAdded of ${LP} on FPMM ${POOL} (amounts 100000000/60000000, pool shares 100000000): legacy AMM liquidity is not booked (docs/CHAIN.md "Legacy AMM")`,
    `FPMMFundingRemoved of ${LP} on FPMM ${POOL} (amounts 40000000/70000000, pool shares 50000000): legacy AMM liquidity is not booked (docs/CHAIN.md "Legacy AMM")`,
  ]);
});

test('the log query asks for the FPMM topics at the pools the catalog knows, and for nothing of theirs without one', () => {
  const fpmmTopics = [TOPIC0.fpmmBuy, TOPIC0.fpmmSell, TOPIC0.fpmmFundingAdded, TOPIC0.fpmmFundingRemoved];
  const known = setup(true).book.logQuery(BLOCK);
  expect(known.addresses).toContain(POOL);
  expect(fpmmTopics.every((t) => known.topics.includes(t))).toBe(true);
  const unknown = setup(false).book.logQuery(BLOCK);
  expect(unknown.addresses).not.toContain(POOL);
  expect(fpmmTopics.some((t) => unknown.topics.includes(t))).toBe(false);
  // A pool the catalog does not know is no configured contract: its logs are refused, not guessed.
  expect(
    read(
      [log(POOL, SOURCE, 'FPMMSell', { seller: BUYER, returnAmount: 1n, feeAmount: 0n, outcomeIndex: 0n, outcomeTokensSold: 2n })],
      false,
    ).rejected,
  ).toEqual([`log of an unconfigured contract ${POOL}`]);
});

test('a CTF leg of a pool the catalog learnt after reading it is refused with the way to read its trade, not booked as a transfer', () => {
  const { catalog, book } = setup(false);
  const [, transfer] = buyTransaction({ investment: 10_000_000n, fee: 0n, outcomeIndex: 0n, tokens: 20_000_000n });
  const { records } = interpretLogs([transfer as ChainLog], new Map([[BLOCK, TIME_MS]]), book);
  expect(records.map((r) => r.kind)).toEqual(['transfer']);
  catalog.add([market]);
  const outcome = toLedgerEvent(
    records[0] as Extract<SettlementRecord, { kind: 'transfer' }>,
    catalog,
    context,
    new NegRiskBook(C.negRiskAdapter.address),
  );
  expect(outcome).toEqual({
    status: 'rejected',
    reason: `a leg of legacy AMM ${POOL} in block ${BLOCK}, learnt after the block was read: its FPMM events are read by backfilling the block (npm run backfill -- --source chain)`,
  });
});

test("Gamma's marketMakerAddress is kept lower-case, and an empty one is null", () => {
  const raw = readSample('gamma/market_open_ceasefire_before_gta6.json') as Record<string, unknown>;
  const amm = normalizeGammaMarket({ ...raw, marketMakerAddress: '0x9B2A1F4ED1E18E2D0FD2E6C6B4B0B3F8C0A1D2E3' }, 'polymarket', TIME_MS);
  expect(amm.ok && amm.value.market_maker_address).toBe(POOL);
  expect(sample.ok && sample.value.market_maker_address).toBeNull();
  // The address is part of the market's content: a new one is a new version of the market.
  expect(amm.ok && sample.ok && amm.value.event_id !== sample.value.event_id).toBe(true);
});
