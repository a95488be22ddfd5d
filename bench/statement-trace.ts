/**
 * Times every statement an analytics store runs, so a bench can split a slow request into the engine's
 * time and everything else (HTTP, validation, JSON, the event loop). Requests in bench:scale run one at a
 * time with no pipeline work beside them, so the statements inside a request's interval are its own.
 */
import type { AnalyticsStore } from '../services/ports/analytics-store.js';

export interface Interval {
  start: number;
  end: number;
}

export interface StatementTrace {
  store: AnalyticsStore;
  /** Statements since the last `clear()`, in start order. */
  intervals: Interval[];
  clear(): void;
}

const TIMED = new Set(['query', 'command', 'insert']);

export function traceStatements(store: AnalyticsStore): StatementTrace {
  const intervals: Interval[] = [];
  const traced = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (!TIMED.has(String(property))) return value.bind(target);
      return async (...args: unknown[]) => {
        const interval = { start: performance.now(), end: Number.NaN };
        intervals.push(interval);
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          interval.end = performance.now();
        }
      };
    },
  });
  return { store: traced, intervals, clear: () => intervals.splice(0) };
}

/** The engine's share of `request`: the statements that ran inside it (clipped to it), and how many. */
export function engineShare(intervals: Interval[], request: Interval): { engine_ms: number; statements: number } {
  let engine = 0;
  let statements = 0;
  for (const statement of intervals) {
    if (statement.end <= request.start || statement.start >= request.end) continue;
    engine += Math.min(statement.end, request.end) - Math.max(statement.start, request.start);
    statements++;
  }
  return { engine_ms: Math.round(engine * 100) / 100, statements };
}
