/**
 * The signals the signals processor decides, as a stream of the log, so the `signals` stream channel
 * can replay them from a cursor like every channel. Keyed by market like the trades and lifecycle
 * streams the signals come from, so a market's signals stay in the order they were decided.
 */
import { defineStream } from '../events/stream.js';

export type { SignalDecided } from '../events/types.generated.js';

export const signals = defineStream({
  name: 'signals',
  topic: 'tapeline.signals.v1',
  partitions: 4,
  schema: 'signal.v1',
  key: (signal) => signal.market_id,
  time: (signal) => signal.at_ms,
});
