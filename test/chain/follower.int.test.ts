/**
 * The chain follower against the simulator's JSON-RPC, publishing to a real file log: every settled
 * fill of the covered blocks once with both sides, a provider that refuses wide ranges, a reorg deeper
 * than the confirmations (retracted and replaced), fills of a market the catalog does not know (held,
 * kept across a restart, released in order once it is known), and a restart from the checkpoint that
 * neither repeats nor skips a block.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { ChainCatalog } from '../../services/chain/catalog.js';
import { CatalogLookup } from '../../services/chain/catalog-lookup.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { ChainFollower, type FollowerOptions } from '../../services/chain/follower.js';
import { openRpcChainReader } from '../../services/chain/rpc-chain-reader.js';
import { loadConfig } from '../../services/config.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { ChainLedgerEvent, MarketUpserted } from '../../services/events/types.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import { UpstreamClient } from '../../services/ingest/upstream-client.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../simulator/server.js';
import { readAll } from '../eventlog/helpers.js';
import { fixedClock, SMALL_WORLD } from '../simulator/fixtures.js';
import { chainLedger } from '../../services/read-models/chain-ledger/index.js';

const config = loadConfig({});
const logger = pino({ level: 'silent' });

interface Rig {
  sim: RunningSimulator;
  log: EventLog;
  dir: string;
  markets: MarketUpserted[];
  follower(over?: Partial<FollowerOptions>): ChainFollower;
  /** Every ledger event on the log, in partition then offset order (each with where it sits). */
  ledger(): Promise<Array<ChainLedgerEvent & { at: string }>>;
  close(): Promise<void>;
}

async function rig(simOptions: Partial<SimulatorOptions> = {}): Promise<Rig> {
  const sim = await startSimulator({ ...SMALL_WORLD, port: 0, clock: fixedClock(), tickIntervalMs: 60_000, ...simOptions });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-follower-'));
  const log = await openFileEventLog({ directory: path.join(dir, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  const markets = sim.state.world.markets.map((m) => {
    const result = normalizeGammaMarket(
      {
        conditionId: m.conditionId,
        question: m.question,
        outcomes: JSON.stringify(m.outcomes),
        clobTokenIds: JSON.stringify(m.tokenIds),
        negRisk: sim.state.world.events[m.eventIndex]!.negRisk,
        negRiskMarketID: sim.state.world.events[m.eventIndex]!.negRiskMarketId ?? undefined,
      },
      'simulator',
      Date.now(),
    );
    if (!result.ok) throw new Error(result.reason);
    return result.value;
  });
  const reader = openRpcChainReader({ url: sim.rpcUrl, requestsPer10s: 10_000, timeoutMs: 5_000, batchSize: 3 });
  const publisher = new EventPublisher(log);
  return {
    sim,
    log,
    dir,
    markets,
    follower: (over = {}) =>
      new ChainFollower({
        reader,
        book: new ContractBook(config.chain.contracts),
        catalog:
          over.catalog ??
          (() => {
            const catalog = new ChainCatalog();
            catalog.add(markets);
            return catalog;
          })(),
        lookup: null,
        publisher,
        logger,
        checkpointFile: path.join(dir, 'chain-checkpoint.json'),
        chainId: 137,
        source: 'simulator',
        confirmations: 0,
        reorgWindowBlocks: 128,
        logRangeBlocks: 50,
        logRangeMaxBlocks: 2_000,
        startBlock: sim.chain.head() - 600,
        negRiskAdapter: config.chain.contracts.negRiskAdapter.address,
        ledgerPartitions: chainLedger.partitions,
        holdMaxMs: config.chain.holdMaxMs,
        ...over,
      }),
    ledger: async () =>
      (await readAll(log, STREAMS.chainLedger.topic)).map((m) => ({
        ...STREAMS.chainLedger.codec.decode(m.value),
        at: `${m.partition}:${String(m.offset).padStart(8, '0')}`,
      })),
    close: async () => {
      await log.close();
      await sim.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function followToHead(follower: ChainFollower, maxSteps = 200): Promise<void> {
  for (let i = 0; i < maxSteps; i++) if ((await follower.step()).caughtUp) return;
  throw new Error('did not reach the head');
}

/** The tape's taker fills in [fromSecond, toSecond] as (tx, wallet, shares) keys. */
function tapeTakers(sim: RunningSimulator, fromSecond: number, toSecond: number): string[] {
  return sim.state.trades
    .filter((t) => t.timestamp >= fromSecond && t.timestamp <= toSecond)
    .map((t) => `${t.transactionHash}|${sim.state.world.wallets[t.walletIndex]!.address}|${Math.round(t.size * 1e6)}`)
    .sort();
}

const takerKeys = (events: ChainLedgerEvent[]) =>
  events
    .filter((e) => e.kind === 'fill' && e.fill?.role === 'taker')
    .map((e) => `${e.tx_hash}|${e.wallet}|${e.fill!.shares_micro}`)
    .sort();

describe('following a node that refuses ranges wider than 20 blocks', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig({ faults: { rpcMaxBlockRange: 20 } });
    r.sim.advance(120_000);
  });
  afterAll(() => r.close());

  test('narrows the window, reaches the head, and publishes every fill of the range once, with its maker', async () => {
    const follower = r.follower();
    const windows: number[] = [];
    for (let i = 0; i < 200 && follower.status().ingested_block !== r.sim.chain.head(); i++) {
      await follower.step();
      windows.push(follower.status().log_range_blocks);
    }
    expect(follower.status().ingested_block).toBe(r.sim.chain.head());
    // 50 refused, 25 refused, 12 served, then a search between 12 and 25 settles on the limit.
    expect(windows.slice(0, 3)).toEqual([25, 12, 18]);
    expect(windows.at(-2)).toBe(20);
    const events = await r.ledger();
    const from = r.sim.chain.secondOfBlock(r.sim.chain.head() - 600);
    expect(takerKeys(events)).toEqual(tapeTakers(r.sim, from, r.sim.chain.secondOfBlock(r.sim.chain.head())));
    const makers = events.filter((e) => e.fill?.role === 'maker');
    expect(makers.length).toBe(
      events.filter((e) => e.fill?.role === 'taker' && e.fill.counterparty !== '0x0000000000000000000000000000000000000a11').length,
    );
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    // Chain order on each partition: per ledger group, (block, log index) never goes back.
    const byGroup = new Map<string, number[]>();
    for (const e of events) byGroup.set(e.ledger_group, [...(byGroup.get(e.ledger_group) ?? []), e.block_number * 1e4 + e.log_index]);
    for (const order of byGroup.values()) expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});

describe('a reorg deeper than the confirmations', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
    r.sim.advance(60_000);
  });
  afterAll(() => r.close());

  test('retracts every ledger group of the orphaned blocks, then publishes their replacements', async () => {
    const follower = r.follower();
    await followToHead(follower);
    const before = await r.ledger();
    const head = r.sim.chain.head();
    const orphaned = before.filter((e) => e.block_number > head - 3 && e.kind !== 'watermark');
    expect(orphaned.length).toBeGreaterThan(0);
    r.sim.reorg(3);
    r.sim.advance(2_000);
    await followToHead(follower);
    const seen = new Set(before.map((e) => e.at));
    const after = (await r.ledger()).filter((e) => !seen.has(e.at));
    const retractions = after.filter((e) => e.kind === 'block_retracted');
    const expected = [...new Set(orphaned.map((e) => `${e.block_hash}|${e.ledger_group}`))].sort();
    expect(retractions.map((e) => `${e.block_hash}|${e.ledger_group}`).sort()).toEqual(expected);
    // Replacements: the same transactions again, in blocks with the new hashes.
    const replaced = after.filter(
      (e) => e.kind !== 'block_retracted' && e.kind !== 'watermark' && e.block_number > head - 3 && e.block_number <= head,
    );
    expect(replaced.map((e) => `${e.tx_hash}|${e.wallet}|${e.kind}`).sort()).toEqual(
      orphaned.map((e) => `${e.tx_hash}|${e.wallet}|${e.kind}`).sort(),
    );
    expect(replaced.every((e) => e.block_hash === r.sim.chain.blockHash(e.block_number))).toBe(true);
    // On each partition the retraction comes before the replacements of its group.
    for (const retraction of retractions) {
      const later = replaced.filter((e) => e.ledger_group === retraction.ledger_group && e.block_number === retraction.block_number);
      for (const e of later) expect(e.at > retraction.at).toBe(true);
    }
    expect(follower.status()).toMatchObject({ reorgs: 1, retracted_blocks: new Set(orphaned.map((e) => e.block_number)).size });
  });
});

describe('fills of a market the catalog does not know yet', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
    r.sim.advance(60_000);
  });
  afterAll(() => r.close());

  test('are held (across a restart) and released in order once the market is known; other wallets are not held up', async () => {
    const start = r.sim.chain.head() - 600;
    // The busiest market of the range goes missing from the catalog.
    const counts = new Map<number, number>();
    for (const t of r.sim.state.trades)
      if (t.timestamp >= r.sim.chain.secondOfBlock(start)) counts.set(t.marketIndex, (counts.get(t.marketIndex) ?? 0) + 1);
    const hidden = r.sim.state.world.markets[[...counts].sort((a, b) => b[1] - a[1])[0]![0]]!;
    const partial = new ChainCatalog();
    partial.add(r.markets.filter((m) => m.market_id !== hidden.conditionId));
    const first = r.follower({ catalog: partial, startBlock: start });
    await followToHead(first);
    expect(first.status().pending_events).toBeGreaterThan(0);
    const published = await r.ledger();
    expect(published.some((e) => e.market_id === hidden.conditionId)).toBe(false);
    // Every range ends with a watermark on each partition.
    expect(new Set(published.filter((e) => e.kind === 'watermark').map((e) => e.ledger_group)).size).toBe(8);
    const checkpoint = JSON.parse(fs.readFileSync(path.join(r.dir, 'chain-checkpoint.json'), 'utf8'));
    expect(checkpoint.pending.length).toBe(first.status().pending_events);
    // Other wallets' fills after the first held one went out; a wallet with a held fill has nothing published after it.
    const firstHeld = Math.min(...checkpoint.pending.map((p: { at: { blockNumber: number } }) => p.at.blockNumber));
    expect(published.some((e) => e.block_number > firstHeld)).toBe(true);
    // While held, no watermark claims the held record's block: the ledger has not had it.
    const claimed = Math.max(...published.filter((e) => e.kind === 'watermark').map((e) => e.block_number));
    expect(claimed).toBe(firstHeld - 1);
    const heldSince = new Map<string, number>();
    for (const p of checkpoint.pending as Array<{
      at: { blockNumber: number; logIndex: number };
      fill?: { maker: string };
      wallet?: string;
    }>) {
      const wallet = p.fill?.maker ?? p.wallet ?? '';
      heldSince.set(wallet, Math.min(heldSince.get(wallet) ?? Number.POSITIVE_INFINITY, p.at.blockNumber * 1e4 + p.at.logIndex));
    }
    for (const e of published)
      expect(e.block_number * 1e4 + e.log_index < (heldSince.get(e.wallet) ?? Number.POSITIVE_INFINITY)).toBe(true);
    // A restart keeps them; the market becomes known through a Gamma lookup.
    const catalog = new ChainCatalog();
    catalog.add(r.markets.filter((m) => m.market_id !== hidden.conditionId));
    const gamma = new UpstreamClient({ name: 'gamma', baseUrl: r.sim.gammaUrl, budgetPer10s: 100, timeoutMs: 5_000 });
    const second = r.follower({ catalog, startBlock: start, lookup: new CatalogLookup(gamma, catalog, new EventPublisher(r.log)) });
    expect(second.status().pending_events).toBe(checkpoint.pending.length);
    await second.step();
    expect(second.status().pending_events).toBe(0);
    const all = await r.ledger();
    expect(takerKeys(all)).toEqual(tapeTakers(r.sim, r.sim.chain.secondOfBlock(start), r.sim.chain.secondOfBlock(r.sim.chain.head())));
    // Per (wallet, token) the log holds the chain's order even though some fills waited.
    const byPosition = new Map<string, number[]>();
    for (const e of all.filter((x) => x.kind === 'fill')) {
      const key = `${e.wallet}|${e.fill!.asset_id}`;
      byPosition.set(key, [...(byPosition.get(key) ?? []), e.block_number * 1e4 + e.log_index]);
    }
    for (const order of byPosition.values()) expect(order).toEqual([...order].sort((a, b) => a - b));
    // Released, the next range's watermarks claim what was read again.
    r.sim.advance(10_000);
    await followToHead(second);
    const claimedNow = Math.max(...(await r.ledger()).filter((e) => e.kind === 'watermark').map((e) => e.block_number));
    expect(claimedNow).toBe(second.status().ingested_block);
  });
});

describe('the hold limit', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
    r.sim.advance(30_000);
  });
  afterAll(() => r.close());

  test("fills of a market the catalog never learns are dead-lettered once held CHAIN_HOLD_MAX_MS (across a restart), even at the head; their wallets' later fills go out", async () => {
    const start = r.sim.chain.head() - 300;
    const hidden = r.sim.state.world.markets[r.sim.state.trades.find((t) => t.timestamp >= r.sim.chain.secondOfBlock(start))!.marketIndex]!;
    const catalog = () => {
      const partial = new ChainCatalog();
      partial.add(r.markets.filter((m) => m.market_id !== hidden.conditionId));
      return partial;
    };
    const t0 = Date.UTC(2026, 5, 1);
    const holdMaxMs = 3_600_000;
    const first = r.follower({ catalog: catalog(), startBlock: start, holdMaxMs, clock: () => t0 });
    await followToHead(first);
    const held = first.status().pending_events;
    expect(held).toBeGreaterThan(0);
    const positionEvents = async () => (await r.ledger()).filter((e) => e.kind !== 'watermark').length;
    const before = await positionEvents();
    // A restart just short of the limit keeps them; at the limit, a step with no new block decides them.
    expect((await r.follower({ catalog: catalog(), startBlock: start, holdMaxMs, clock: () => t0 + holdMaxMs - 1 }).step()).caughtUp).toBe(
      true,
    );
    const second = r.follower({ catalog: catalog(), startBlock: start, holdMaxMs, clock: () => t0 + holdMaxMs });
    expect(second.status().pending_events).toBe(held);
    const stepped = await second.step();
    const status = second.status();
    expect(status).toMatchObject({ pending_events: 0, hold_limit_ms: holdMaxMs, released_at_hold_limit: 0 });
    const deadLetters = (await readAll(r.log, STREAMS.deadLetters.topic)).map((m) => STREAMS.deadLetters.codec.decode(m.value));
    const reasons = deadLetters.filter((d) => d.origin === 'polygon/settlement').map((d) => d.reason);
    expect(reasons.length).toBe(status.dead_lettered_at_hold_limit);
    expect(stepped.deadLettered).toBe(reasons.length);
    for (const reason of reasons)
      expect(reason).toMatch(
        /^(fill|split|merge|redemption) held 3600 s \(limit 3600 s\): the catalog does not know (token|condition) \w+$/,
      );
    // Every event of the hidden market is dead-lettered; the rest of the held wallets' events went out.
    const hiddenTokens = new Set(hidden.tokenIds);
    const after = await r.ledger();
    expect(after.some((e) => e.market_id === hidden.conditionId || (e.fill && hiddenTokens.has(e.fill.asset_id)))).toBe(false);
    expect(reasons.length).toBeGreaterThan(0);
    expect((await positionEvents()) - before).toBe(held - reasons.length);
  });
});

describe('restarting from the checkpoint', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
    r.sim.advance(30_000);
  });
  afterAll(() => r.close());

  test('continues at the next block: no block read twice, none skipped', async () => {
    const start = r.sim.chain.head() - 300;
    const first = r.follower({ startBlock: start });
    await first.step();
    await first.step();
    const mid = first.status().ingested_block!;
    expect(mid).toBeLessThan(r.sim.chain.head());
    const second = r.follower({ startBlock: 0 });
    await followToHead(second);
    const events = await r.ledger();
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    expect(takerKeys(events)).toEqual(tapeTakers(r.sim, r.sim.chain.secondOfBlock(start), r.sim.chain.secondOfBlock(r.sim.chain.head())));
  });
});
