/**
 * The API document's stream filters are the channels' own: for each channel, the SSE query parameters
 * that apply to it (no `x-channels`, or `x-channels` naming it) are exactly the filters the channel
 * takes, so the document, the SDKs' typed filters and the MCP watch tools never offer one the service
 * refuses, or hide one it takes.
 */
import { STREAMS } from '../../clients/ts/src/api.generated.js';
import { CHANNELS } from '../../services/streams/channels.js';

const sse = Object.values(STREAMS).find((spec) => spec.path === '/stream/sse')!;
const NOT_FILTERS = new Set(['channel', 'cursor']);

test('every channel of the document is a channel of the service', () => {
  const channel = sse.parameters.find((p) => p.name === 'channel')!;
  expect([...(channel.schema.enum as string[])].sort()).toEqual(Object.keys(CHANNELS).sort());
});

test.each(Object.values(CHANNELS).map((channel) => [channel.name, channel] as const))(
  "the document's filters for %s are the channel's",
  (name, channel) => {
    const documented = sse.parameters
      .filter((p) => p.in === 'query' && !NOT_FILTERS.has(p.name) && (p.channels === undefined || p.channels.includes(name)))
      .map((p) => p.name);
    expect(documented.sort()).toEqual([...channel.filters].sort());
  },
);
