/**
 * /truth: the simulator's own accounting of every wallet (truth.ts), for `npm run verify` to hold the
 * service's figures to. Served by the simulator only, never under the service's /v1. Every response
 * says `source: "simulator"`; amounts are micro-units as decimal strings (exact).
 *
 * `through_block` or `through_time` (default: the head) computes the accounts over the blocks up to it, so a caller can
 * compare at exactly the block the service's figures are as of (its `data_as_of_block`).
 */
import { Router } from 'express';
import type { SimulatedChain } from './chain.js';
import { dateParam, HttpError, intParam, optionalIntParam, type Query, WALLET_ADDRESS } from './http-params.js';
import type { SimulatorState } from './state.js';
import { SimulatorTruth, type WalletTruth } from './truth.js';

const MAX_PAGE = 500;

/** bigints as decimal strings, so micro-unit amounts stay exact in JSON. */
function exact(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(exact);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, exact(inner)]));
  return value;
}

export function truthRouter(state: SimulatorState, chain: SimulatedChain): Router {
  const router = Router();
  const truth = new SimulatorTruth(state, chain);

  const throughBlock = (query: Query): number => {
    const head = chain.head();
    // through_time: the service's data_as_of (a block time) names the same block: one block per second.
    const time = dateParam(query, 'through_time');
    const block = optionalIntParam(query, 'through_block') ?? (time === undefined ? head : chain.blockOfSecond(Math.floor(time / 1000)));
    if (block > head) throw new HttpError(400, `through_block must be <= the head (${head})`);
    return block;
  };
  const header = (block: number) => {
    const second = chain.secondOfBlock(block);
    return { source: 'simulator', through_block: block, through_time: new Date(second * 1000).toISOString() };
  };
  const render = (wallet: WalletTruth) => exact(wallet);

  router.get('/wallets', (req, res) => {
    state.sync();
    const block = throughBlock(req.query);
    const second = chain.secondOfBlock(block);
    const limit = intParam(req.query, 'limit', { defaultValue: 100, min: 1, max: MAX_PAGE, aboveMax: 'clamp' });
    const cursor = intParam(req.query, 'cursor', { defaultValue: 0, min: 0, max: Number.MAX_SAFE_INTEGER, aboveMax: 'reject' });
    const wallets = truth.walletsWithChanges(second);
    const page = wallets.slice(cursor, cursor + limit);
    const next = cursor + limit < wallets.length ? String(cursor + limit) : null;
    res.json({
      ...header(block),
      total: wallets.length,
      next_cursor: next,
      data: page.map((index) => render(truth.wallet(index, second))),
    });
  });

  router.get('/wallets/:address', (req, res) => {
    state.sync();
    const address = String(req.params.address);
    if (!WALLET_ADDRESS.test(address)) throw new HttpError(400, 'address must be 0x + 40 hex');
    const wallet = state.walletByAddress.get(address.toLowerCase());
    if (!wallet) throw new HttpError(404, 'no such simulated wallet');
    const block = throughBlock(req.query);
    res.json({ ...header(block), data: render(truth.wallet(wallet.index, chain.secondOfBlock(block))) });
  });

  return router;
}
