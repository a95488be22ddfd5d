/**
 * A live stream of one channel in a component: GET /v1/stream/sse through EventSource (same origin,
 * so the session cookie authenticates it and page scripts never see the key). After a dropped
 * connection, or a server's `slow_consumer` end, the browser reconnects by itself with the last
 * event id as Last-Event-ID, which is the stream's cursor: the page misses and repeats nothing while
 * it stays open. A refusal (402, 410 cursor_expired) ends it: `stopped`, and the panel says so.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { StreamServerMessage } from '../../services/http/types.generated.js';

export type StreamState = 'connecting' | 'live' | 'stopped';

/**
 * Opens the stream for `query` (the SSE query: channel and filters; null: no stream) and hands each
 * message of `types` to `onMessage`. Closed when the component goes or the query changes.
 */
export function useStream(query: string | null, types: readonly string[], onMessage: (message: StreamServerMessage) => void): StreamState {
  const [state, setState] = useState<StreamState>(query === null ? 'stopped' : 'connecting');
  const latest = useRef(onMessage);
  latest.current = onMessage;
  const typeList = types.join(',');
  useEffect(() => {
    if (query === null) {
      setState('stopped');
      return;
    }
    setState('connecting');
    const source = new EventSource(`/v1/stream/sse?${query}`);
    const deliver = (event: Event) => latest.current(JSON.parse((event as MessageEvent<string>).data) as StreamServerMessage);
    const wanted = typeList.split(',');
    for (const type of wanted) source.addEventListener(type, deliver);
    source.addEventListener('subscribed', () => setState('live'));
    // Both the server's `error` message (a MessageEvent) and a connection failure arrive as `error`.
    source.addEventListener('error', () => setState(source.readyState === EventSource.CLOSED ? 'stopped' : 'connecting'));
    return () => source.close();
  }, [query, typeList]);
  return state;
}
