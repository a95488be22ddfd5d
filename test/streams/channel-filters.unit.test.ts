/**
 * The API document's stream filters are the channels' own: for each channel, the SSE query parameters
 * that apply to it (no `x-channels`, or `x-channels` naming it) are exactly the filters the channel
 * takes, so the document, the SDKs' typed filters and the MCP watch tools never offer one the service
 * refuses, or hide one it takes.
 */
import fs from 'node:fs';
import { parse } from 'yaml';
import { STREAMS } from '../../clients/ts/src/api.generated.js';
import { CHANNELS } from '../../services/streams/channels.js';

const sse = Object.values(STREAMS).find((spec) => spec.path === '/stream/sse')!;
const NOT_FILTERS = new Set(['channel', 'cursor']);

test('every channel of the document is a channel of the service', () => {
  const channel = sse.parameters.find((p) => p.name === 'channel')!;
  expect([...(channel.schema.enum as string[])].sort()).toEqual(Object.keys(CHANNELS).sort());
});

test("every list of channels in the document (x-channels of the stream operations, the channel enums of the parameter, the subscribe message and the subscribed message) is the service's", () => {
  const document = parse(fs.readFileSync(new URL('../../api/openapi.yaml', import.meta.url), 'utf8'));
  const schemas = document.components.schemas;
  const lists: Array<[string, unknown]> = [
    ['/stream/sse x-channels', document.paths['/stream/sse'].get['x-channels']],
    ['/stream x-channels', document.paths['/stream'].get['x-channels']],
    ['/stream/sse channel', document.paths['/stream/sse'].get.parameters.find((p: any) => p.name === 'channel').schema.enum],
    [
      'StreamClientMessage subscribe channel',
      schemas.StreamClientMessage.oneOf.find((o: any) => o.properties.type.const === 'subscribe').properties.channel.enum,
    ],
    ['StreamSubscribed channel', schemas.StreamSubscribed.properties.channel.enum],
  ];
  for (const [where, list] of lists) expect([where, [...(list as string[])].sort()]).toEqual([where, Object.keys(CHANNELS).sort()]);
  // Each data message names one channel of the service.
  for (const ref of schemas.StreamServerMessage.oneOf as Array<{ $ref: string }>) {
    const message = schemas[ref.$ref.split('/').at(-1)!];
    const channels = message.properties.channel?.enum as string[] | undefined;
    if (channels) for (const channel of channels) expect([ref.$ref, Object.hasOwn(CHANNELS, channel)]).toEqual([ref.$ref, true]);
  }
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
