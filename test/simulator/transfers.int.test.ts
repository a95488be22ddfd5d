/**
 * ERC-1155 transfers over HTTP (SIM_TRANSFERS): eth_getLogs filters them by address and topics as a
 * node does (a list per position is "any of", null or [] a wildcard, a log with fewer topics than the
 * filter's positions never matches), and the Data API shows the receiver's position (at the sender's
 * average price) and no activity row for the transfer, Polymarket's /activity having no such type.
 */
import { TOPIC0 } from '../../services/chain/abis.js';
import { POLYGON_CONTRACTS } from '../../services/chain/polygon-contracts.js';
import { SIM_GENESIS_BLOCK } from '../../simulator/chain.js';
import type { JournalEntry } from '../../simulator/chain-journal.js';
import { fromMicro } from '../../simulator/fill-amounts.js';
import { tokenKey } from '../../simulator/ledger.js';
import { startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { fixedClock, SMALL_WORLD } from './fixtures.js';
import { postJson, getJson, type Row } from './http.js';

const CTF = POLYGON_CONTRACTS.conditionalTokens.toLowerCase();
const hex = (n: number) => `0x${n.toString(16)}`;

describe('transfers over the simulator’s RPC and Data API', () => {
  let sim: RunningSimulator;
  let transfers: Array<Extract<JournalEntry, { kind: 'transfer' }>>;
  const getLogs = async (filter: Record<string, unknown>) => {
    const { body } = await postJson<{ result?: Array<{ address: string; topics: string[]; transactionHash: string }>; error?: unknown }>(
      sim.rpcUrl,
      { jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ fromBlock: hex(SIM_GENESIS_BLOCK), toBlock: 'latest', ...filter }] },
    );
    if (!body.result) throw new Error(`eth_getLogs failed: ${JSON.stringify(body.error)}`);
    return body.result;
  };

  beforeAll(async () => {
    sim = await startSimulator({ ...SMALL_WORLD, historyHours: 6, port: 0, clock: fixedClock(), tickIntervalMs: 60_000, transfers: true });
    const head = sim.state.generatedThroughSecond;
    transfers = sim.state.journal.entries.filter(
      (e): e is Extract<JournalEntry, { kind: 'transfer' }> => e.kind === 'transfer' && e.second <= head,
    );
  });
  afterAll(async () => {
    await sim.close();
  });

  it('filters transfer logs by address and topic0 lists, as a node does', async () => {
    expect(transfers.length).toBeGreaterThan(10);
    const both = await getLogs({ address: [CTF], topics: [[TOPIC0.ctfTransferSingle, TOPIC0.ctfTransferBatch]] });
    const singles = await getLogs({ address: CTF, topics: [TOPIC0.ctfTransferSingle] });
    const batches = await getLogs({ address: CTF.toUpperCase().replace('0X', '0x'), topics: [[TOPIC0.ctfTransferBatch]] });
    expect(singles.length + batches.length).toBe(both.length);
    expect(singles.every((log) => log.topics[0] === TOPIC0.ctfTransferSingle && log.address === CTF)).toBe(true);
    const sent = new Set(both.map((log) => log.transactionHash));
    for (const { transfer } of transfers) expect(sent.has(transfer.transactionHash)).toBe(true);
    // The sender's topic (position 1, the operator) selects its own transfers.
    const sender = sim.state.world.wallets[transfers[0]!.transfer.fromWalletIndex]!.address;
    const operatorTopic = `0x${sender.slice(2).padStart(64, '0')}`;
    const own = await getLogs({ address: CTF, topics: [TOPIC0.ctfTransferSingle, operatorTopic] });
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((log) => log.topics[1] === operatorTopic)).toBe(true);
    // No address (or an empty list) is any address; an empty list at a position is a wildcard.
    expect((await getLogs({ topics: [[TOPIC0.ctfTransferSingle]] })).length).toBe(singles.length);
    expect((await getLogs({ address: [], topics: [[TOPIC0.ctfTransferSingle], []] })).length).toBe(singles.length);
  });

  it('never matches a log with fewer topics than the filter has positions, wildcards included', async () => {
    const exchange = POLYGON_CONTRACTS.exchangeV1.toLowerCase();
    const all = await getLogs({ address: exchange });
    // v1's OrdersMatched has 3 topics and FeeCharged 2; OrderFilled 4.
    expect(all.some((log) => log.topics.length < 4)).toBe(true);
    const four = await getLogs({ address: exchange, topics: [null, null, null, null] });
    expect(four.length).toBe(all.filter((log) => log.topics.length === 4).length);
    const { body } = await postJson<{ error?: { code: number } }>(sim.rpcUrl, {
      jsonrpc: '2.0',
      id: 2,
      method: 'eth_getLogs',
      params: [{ fromBlock: hex(SIM_GENESIS_BLOCK), toBlock: 'latest', topics: [null, null, null, null, null] }],
    });
    expect(body.error?.code).toBe(-32602);
  });

  it('the receiver holds what it received at the sender’s average price, and /activity shows no transfer', async () => {
    const { state } = sim;
    // A receiver still holding a received token that it had never held before.
    const found = transfers
      .flatMap(({ transfer }) => transfer.legs.map((leg) => ({ transfer, leg })))
      .find(({ transfer, leg }) => {
        const key = tokenKey(leg.marketIndex, leg.outcomeIndex);
        const holding = state.ledger.holdingsOf(transfer.toWalletIndex).get(key);
        return holding !== undefined && holding.totalBought === 0n && holding.shares >= 1_000_000n;
      });
    expect(found).toBeDefined();
    const { transfer, leg } = found!;
    const receiver = state.world.wallets[transfer.toWalletIndex]!;
    const market = state.world.markets[leg.marketIndex]!;
    const holding = state.ledger.holdingsOf(receiver.index).get(tokenKey(leg.marketIndex, leg.outcomeIndex))!;
    const positions = (await getJson<Row[]>(`${sim.dataUrl}/positions?user=${receiver.address}&sizeThreshold=0&limit=500`)).body;
    const row = positions.find((p) => p.asset === market.tokenIds[leg.outcomeIndex]);
    expect(row).toMatchObject({ totalBought: 0 });
    expect(row!.size).toBeCloseTo(fromMicro(holding.shares), 4);
    expect(row!.avgPrice).toBeGreaterThan(0);
    const activity = (await getJson<Row[]>(`${sim.dataUrl}/activity?user=${receiver.address}&limit=500`)).body;
    expect(activity.some((a) => a.transactionHash === transfer.transactionHash)).toBe(false);
  });
});
