/**
 * Optional upstream misbehaviour, to exercise the ingestor's retry and validation paths.
 * All decisions are deterministic from the seed: HTTP faults follow the order of requests, and
 * whether a trade is served malformed depends only on the trade itself (so retries see the same).
 */

import type { RequestHandler } from 'express';
import { createRng, unitHash } from './prng.js';

export interface FaultOptions {
  /** Fraction of requests answered 429 with Retry-After. */
  http429Rate?: number;
  /** Fraction of requests answered 500. */
  http500Rate?: number;
  /** Fraction of /data/trades rows served malformed. */
  malformedTradeRate?: number;
}

/** Seconds a client is asked to wait after a 429; short, so tests with faults stay fast. */
const RETRY_AFTER_SECONDS = 1;

export function httpFaults(seed: number, faults: FaultOptions): RequestHandler {
  const rate429 = faults.http429Rate ?? 0;
  const rate500 = faults.http500Rate ?? 0;
  const rng = createRng(seed, 'http-faults');
  return (_req, res, next) => {
    if (rate429 <= 0 && rate500 <= 0) return next();
    const roll = rng.next();
    if (roll < rate429) {
      res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      res.status(429).json({ error: 'Too Many Requests' });
      return;
    }
    if (roll < rate429 + rate500) {
      res.status(500).json({ error: 'Internal Server Error' });
      return;
    }
    next();
  };
}

type Row = Record<string, unknown>;

/** The ways a malformed row differs from a good one, each seen in the wild or plausible on the wire. */
const MALFORMATIONS: ((row: Row) => Row)[] = [
  (row) => ({ ...row, price: 'abc' }),
  ({ conditionId: _dropped, ...row }) => row,
  (row) => ({ ...row, size: null }),
  (row) => ({ ...row, timestamp: new Date(Number(row.timestamp) * 1000).toISOString() }),
  ({ asset: _dropped, ...row }) => row,
];

export function maybeMalformTrade(seed: number, rate: number, row: Row): Row {
  if (rate <= 0) return row;
  const key = `${String(row.transactionHash)}|${String(row.proxyWallet)}`;
  if (unitHash(seed, 'malformed', key) >= rate) return row;
  const variant = Math.floor(unitHash(seed, 'malformed-kind', key) * MALFORMATIONS.length);
  return (MALFORMATIONS[variant] as (row: Row) => Row)(row);
}
