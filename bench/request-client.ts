/**
 * The HTTP client of a timed bench, in a process of its own (request-client.child.ts), as a user's
 * client is: its allocations (each response's buffers and body) then fill its own heap, not the heap of
 * the process serving the requests, whose garbage-collection pauses the figures are meant to show.
 * bench/api.bench.ts runs its load generator apart for the same reason.
 *
 * Requests run one at a time in the order given. Each comes back as an interval on this process's
 * performance.now() clock: the child times with its own monotonic clock from its time origin. Each
 * process reads its time origin from the system clock when it starts, so the intervals line up with
 * this process's statement trace and GC entries as closely as the two origins agree: here the child's
 * reading fell 0.005 ms from the middle of a 0.03 ms round trip (median of 50).
 */
import { type ChildProcess, fork } from 'node:child_process';
import type { Interval } from './statement-trace.js';

/** What the client process is asked to do: GET each URL in turn with the key. */
export interface RequestBatch {
  id: number;
  urls: string[];
  key: string;
}

/** A request as the client process timed it, on the wall clock (time origin + performance.now()). */
export interface TimedResponse {
  url: string;
  status: number;
  startWallMs: number;
  endWallMs: number;
}

export interface RequestClient {
  /** GETs each URL in turn; the responses in the same order, timed on this process's clock. */
  run(urls: string[]): Promise<Array<Interval & { status: number }>>;
  close(): Promise<void>;
}

export async function startRequestClient(key: string): Promise<RequestClient> {
  const child: ChildProcess = fork(new URL('./request-client.child.ts', import.meta.url), { execArgv: ['--import', 'tsx'] });
  const pending = new Map<number, { resolve: (r: TimedResponse[]) => void; reject: (e: Error) => void }>();
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure = error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  child.on('message', (message: { id: number; responses?: TimedResponse[]; error?: string }) => {
    const p = pending.get(message.id);
    if (!p) return;
    pending.delete(message.id);
    if (message.error !== undefined) p.reject(new Error(`request client: ${message.error}`));
    else p.resolve(message.responses!);
  });
  child.on('error', fail);
  child.on('exit', (code, signal) => fail(new Error(`request client exited (${code ?? signal})`)));
  let next = 0;
  return {
    async run(urls) {
      if (failure) throw failure;
      const id = next++;
      const responses = await new Promise<TimedResponse[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        child.send({ id, urls, key } satisfies RequestBatch);
      });
      // Wall clock to this process's performance.now(): both count from a wall-clock time origin.
      return responses.map((r) => ({
        start: r.startWallMs - performance.timeOrigin,
        end: r.endWallMs - performance.timeOrigin,
        status: r.status,
      }));
    },
    async close() {
      child.removeAllListeners('exit');
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill();
      await exited;
    },
  };
}
