/** The chain ledger's streams (in their own module: the read side's queries need the partition count). */
import { defineStream } from '../../events/stream.js';

/**
 * Keyed by ledger group - the neg-risk market id for neg-risk markets, else the condition id - so
 * every change of one (wallet, token) lands on one partition in chain order: a later position-ledger
 * consumer applies fills of both sides, splits, merges, redemptions and conversions in order. The
 * condition id alone would not do: a conversion changes several condition ids of one neg-risk event
 * at once, and must not overtake a fill of any of them. A retraction travels on the partition of the
 * events it voids; watermarks go to every partition (their ledger_group is a key chosen per partition).
 */
export const chainLedger = defineStream({
  name: 'chainLedger',
  topic: 'tapeline.chain-ledger.v1',
  partitions: 8,
  schema: 'chain.ledger.v1',
  key: (event) => event.ledger_group,
  time: (event) => event.block_time_ms,
});

/** Keyed by condition id (the market), like the market lifecycle that consumes resolutions. */
export const chainResolutions = defineStream({
  name: 'chainResolutions',
  topic: 'tapeline.chain-resolutions.v1',
  partitions: 4,
  schema: 'chain.condition-resolved.v1',
  key: (resolution) => resolution.market_id,
  time: (resolution) => resolution.block_time_ms,
});
