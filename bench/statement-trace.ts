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

const TIMED = new Set(['query', 'queryText', 'command', 'insert']);

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

/** The time `intervals` (statements, GC pauses) overlap `request`, clipped to it, and how many do. */
export function overlapWith(intervals: Interval[], request: Interval): { ms: number; count: number } {
  let ms = 0;
  let count = 0;
  for (const interval of intervals) {
    if (interval.end <= request.start || interval.start >= request.end) continue;
    ms += Math.min(interval.end, request.end) - Math.max(interval.start, request.start);
    count++;
  }
  return { ms: Math.round(ms * 100) / 100, count };
}

/** The engine's share of `request`: the statements that ran inside it (clipped to it), and how many. */
export function engineShare(intervals: Interval[], request: Interval): { engine_ms: number; statements: number } {
  const { ms, count } = overlapWith(intervals, request);
  return { engine_ms: ms, statements: count };
}
