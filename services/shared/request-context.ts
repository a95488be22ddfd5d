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
  /** Aborted once the request is answered or its caller has gone: its queries still waiting are dropped. */
  signal?: AbortSignal;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Runs `work`, and everything it starts, outside any request: background work a request only wakes
 * (an export job) must neither queue in that caller's lane nor be dropped once its answer is sent.
 */
export function outsideRequest<T>(work: () => T): T {
  return storage.exit(work);
}
