/**
 * Who the current work is for, carried across awaits (AsyncLocalStorage). The API opens one per
 * authenticated request; the analytics store reads it to queue the request's queries in the caller's
 * own lane and to apply the request limits, so every route gets both without passing anything.
 * Work outside a request (sink, jobs, signals) runs without one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  /** Fair-scheduling lane: one per account, so one caller's queries queue behind each other, not ahead of others'. */
  lane: string;
  /** Aborted when the caller closed the request before its answer was sent: its waiting queries are dropped. */
  signal?: AbortSignal;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
