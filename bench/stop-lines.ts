/**
 * What a stopping service logs about its stop (services/parts/registry.ts, services/parts/sink-part.ts,
 * services/stack.ts): each part's time, the sink part's steps, the stores' close and the whole stop, read from its JSON log lines. Shared
 * by the shutdown and idle-RSS benchmarks, so a slow stop in either says where its time went.
 */
export interface StopLines {
  parts_ms: Record<string, number>;
  stores_closed_ms: number | null;
  /** The sink part's own steps (read-model jobs, position ledger, sink), stopped concurrently. */
  sink_steps_ms: Record<string, number> | null;
  /** From the signal to the service's last line before it exits (services/stack.ts); the rest of a stop is the process's exit. */
  stopped_ms: number | null;
}

export function emptyStopLines(): StopLines {
  return { parts_ms: {}, stores_closed_ms: null, sink_steps_ms: null, stopped_ms: null };
}

/** Adds one log line to `into` when it is about the stop; other lines (and non-JSON ones) are skipped. */
export function readStopLine(text: string, into: StopLines): void {
  if (!text.startsWith('{')) return;
  const line = JSON.parse(text) as { msg?: string; part?: string; ms?: number; steps_ms?: Record<string, number> };
  if (line.msg === 'part stopped' && line.part) into.parts_ms[line.part] = line.ms ?? -1;
  if (line.msg === 'sink part steps stopped') into.sink_steps_ms = line.steps_ms ?? null;
  if (line.msg === 'stores closed') into.stores_closed_ms = line.ms ?? null;
  if (line.msg === 'stopped; exiting') into.stopped_ms = line.ms ?? null;
}
