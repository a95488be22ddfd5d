/** Shared setup for the simulator tests: a frozen clock and a small world that builds in milliseconds. */

import { SimulatorState, type SimulatorStateOptions } from '../../simulator/state.js';

/** 2026-03-12 09:30:00 UTC: an arbitrary, fixed "now". */
export const FIXED_NOW_MS = Date.UTC(2026, 2, 12, 9, 30, 0);

export const SMALL_WORLD = {
  seed: 7,
  marketCount: 80,
  walletCount: 60,
  historyHours: 24,
  historicTrades: 4000,
  tradesPerSecond: 2,
} as const;

export function fixedClock(startMs = FIXED_NOW_MS): () => number {
  return () => startMs;
}

export function smallState(overrides: SimulatorStateOptions = {}): SimulatorState {
  return new SimulatorState({ ...SMALL_WORLD, clock: fixedClock(), ...overrides });
}

/** Gamma's JSON-array-in-a-string, decoded (throws if it is not one). */
export function decodeJsonArray(value: unknown): unknown[] {
  if (typeof value !== 'string') throw new Error(`expected a string, got ${typeof value}`);
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed)) throw new Error(`expected a JSON array in ${value}`);
  return parsed;
}
