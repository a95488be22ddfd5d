/**
 * A Prometheus metric family as plain data: what every collector (sink, streams, processors, the API)
 * returns and the operator endpoint (api/metrics.ts) renders, so collectors need nothing of the HTTP shell.
 */
export interface Family {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  samples: Array<{ labels: Record<string, string>; value: number }>;
}

/** A gauge or counter family from plain numbers (one sample, no labels). */
export function single(name: string, help: string, type: Family['type'], value: number): Family {
  return { name, help, type, samples: [{ labels: {}, value }] };
}
