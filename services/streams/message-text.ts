/**
 * A stream message as JSON text, the same bytes as `JSON.stringify(message)`. A message's `data` is
 * often one object sent to many subscribers (a channel presents a shared record once: trades-channel.ts,
 * memo.ts), so its text is kept with it and only the head (type, subscription, cursor) is written per
 * subscriber. A message's data never changes once sent.
 */
import type { StreamServerMessage } from '../http/types.generated.js';
import { isShared, memo } from './memo.js';

const TEXT = Symbol('json text');

export function messageText(message: StreamServerMessage): string {
  const data = 'data' in message ? message.data : undefined;
  // The shortcut holds only where `data` is the last key (Subscription.send puts it there).
  if (typeof data !== 'object' || data === null || !isShared(data) || Object.keys(message).at(-1) !== 'data')
    return JSON.stringify(message);
  const text = memo(data, TEXT, () => JSON.stringify(data));
  const { data: _data, ...head } = message as StreamServerMessage & { data: object };
  const headText = JSON.stringify(head);
  return headText === '{}' ? `{"data":${text}}` : `${headText.slice(0, -1)},"data":${text}}`;
}
