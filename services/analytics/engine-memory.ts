/**
 * What the analytics engine says it holds in memory (system.metrics; the same on chDB, in this
 * process, and on a ClickHouse server): its tracked total and its caches. On chDB this is part of
 * the process's RSS, beside V8's heap and the control store, so /metrics shows the process's figures
 * beside it (processMemoryMetrics) and they can be told apart.
 */
import { type Family, single } from '../shared/metric-family.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';

/** system.metrics name -> the figure's label. */
const FIGURES: Record<string, string> = {
  MemoryTracking: 'tracked',
  MarkCacheBytes: 'mark_cache',
  PrimaryIndexCacheBytes: 'primary_index_cache',
  IndexMarkCacheBytes: 'index_mark_cache',
  UncompressedCacheBytes: 'uncompressed_cache',
  IndexUncompressedCacheBytes: 'index_uncompressed_cache',
  QueryCacheBytes: 'query_cache',
  MMapCacheCells: 'mmap_cache_cells',
};

export type EngineMemory = Record<string, number>;

export async function readEngineMemory(store: AnalyticsStore): Promise<EngineMemory> {
  const rows = await store.query<{ metric: string; value: number }>(
    'SELECT metric, toFloat64(value) AS value FROM system.metrics WHERE metric IN {names:Array(String)}',
    { names: Object.keys(FIGURES) },
  );
  return Object.fromEntries(rows.map((row) => [FIGURES[row.metric]!, Number(row.value)]));
}

export function engineMemoryMetrics(memory: EngineMemory): Family[] {
  const cells = memory.mmap_cache_cells;
  return [
    {
      name: 'tapeline_analytics_engine_memory_bytes',
      help: "The analytics engine's own accounting (system.metrics): tracked = all it allocated; the rest are its caches, part of tracked.",
      type: 'gauge',
      samples: Object.entries(memory)
        .filter(([figure]) => figure !== 'mmap_cache_cells')
        .map(([figure, value]) => ({ labels: { figure }, value })),
    },
    ...(cells === undefined
      ? []
      : [single('tapeline_analytics_engine_mmap_cache_cells', "Files the engine's mmap cache holds open.", 'gauge', cells)]),
  ];
}

/** This process's memory as Node reports it: RSS, V8's heap and what lives outside it (Buffers, WASM). */
export function processMemoryMetrics(usage: NodeJS.MemoryUsage = process.memoryUsage()): Family[] {
  return [
    {
      name: 'tapeline_process_memory_bytes',
      help: "This process's memory (process.memoryUsage): rss = resident in all; heap_total/heap_used = V8's heap; external = outside it (Buffers, WASM memory such as the embedded control store's).",
      type: 'gauge',
      samples: [
        { labels: { figure: 'rss' }, value: usage.rss },
        { labels: { figure: 'heap_total' }, value: usage.heapTotal },
        { labels: { figure: 'heap_used' }, value: usage.heapUsed },
        { labels: { figure: 'external' }, value: usage.external },
        { labels: { figure: 'array_buffers' }, value: usage.arrayBuffers },
      ],
    },
  ];
}
