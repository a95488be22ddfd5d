/**
 * The channels a stream can carry: which streams of the log each reads, its filters, the tier it
 * needs (as its REST equivalent), and how a decoded event becomes the message's `data` (null when the
 * filters drop it). Adding a channel is one entry here and its schemas in api/openapi.yaml.
 */
import type { StreamSubscribed } from '../http/types.generated.js';
import { copyChannel, strategyChannel } from './account-channels.js';
import { bookChannel } from './book-channel.js';
import type { Channel } from './channel.js';
import { fillsChannel } from './fills-channel.js';
import { lifecycleChannel } from './lifecycle-channel.js';
import { pricesChannel } from './prices-channel.js';
import { signalsChannel } from './signals-channel.js';
import { tradesChannel } from './trades-channel.js';

export const CHANNELS: Record<string, Channel> = {
  trades: tradesChannel as Channel,
  fills: fillsChannel as Channel,
  lifecycle: lifecycleChannel as Channel,
  prices: pricesChannel as Channel,
  book: bookChannel as Channel,
  signals: signalsChannel as Channel,
  copy: copyChannel as Channel,
  strategy: strategyChannel as Channel,
};

/** The channel names of the API document (StreamSubscribed.channel). */
export type ChannelName = StreamSubscribed['channel'];

export function channelNames(): string[] {
  return Object.keys(CHANNELS);
}

export function channelNamed(name: unknown): Channel | undefined {
  return typeof name === 'string' && Object.hasOwn(CHANNELS, name) ? CHANNELS[name] : undefined;
}
