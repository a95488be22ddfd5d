/** The live streams' figures of this API process, as /metrics families. */
import { type Family, single } from '../shared/metric-family.js';
import type { StreamFigures } from './stream-service.js';

export function streamMetrics(figures: StreamFigures): Family[] {
  return [
    single('tapeline_stream_connections', 'Open stream connections (SSE and WebSocket) holding a key.', 'gauge', figures.connections),
    single('tapeline_stream_subscriptions', 'Open stream subscriptions.', 'gauge', figures.subscriptions),
    single('tapeline_stream_messages_total', 'Data messages sent on streams (heartbeats not counted).', 'counter', figures.messages),
    single('tapeline_stream_slow_consumers_total', 'Subscriptions ended with slow_consumer.', 'counter', figures.slowConsumers),
    single(
      'tapeline_stream_expired_cursors_total',
      'Subscriptions refused or ended with cursor_expired.',
      'counter',
      figures.expiredCursors,
    ),
    single(
      'tapeline_stream_replays_running',
      'Runs of history (a subscription resumed from a cursor) reading the log now; at most STREAM_REPLAY_CONCURRENCY.',
      'gauge',
      figures.replaysRunning,
    ),
    single(
      'tapeline_stream_replays_waiting',
      'Runs of history waiting for a replay slot (taken key by key in turn); live messages never wait here.',
      'gauge',
      figures.replaysWaiting,
    ),
    {
      name: 'tapeline_stream_log_reads_total',
      help: 'Reads of the log by stream subscriptions (and the index of repeated trades they read through), by where they were answered: `memory` (the newest records, shared by the subscriptions at the end) or `log`.',
      type: 'counter',
      samples: [
        { labels: { from: 'memory' }, value: figures.reads.fromMemory },
        { labels: { from: 'log' }, value: figures.reads.fromLog },
      ],
    },
    single(
      'tapeline_stream_repeats_total',
      'Trade and signal records found to repeat an earlier record of the same id (the trade feed publishers overlap); no stream sends them.',
      'counter',
      figures.repeats.found,
    ),
    single(
      'tapeline_stream_repeat_index_ids',
      'Trade and signal ids the repeat index of this process holds.',
      'gauge',
      figures.repeats.ids,
    ),
    single(
      'tapeline_stream_undecodable_total',
      'Log records streams skipped as undecodable (the sink dead-letters them).',
      'counter',
      figures.undecodable,
    ),
  ];
}
