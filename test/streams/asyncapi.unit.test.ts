/**
 * api/asyncapi.yaml as the AsyncAPI parser (@asyncapi/parser: the specification's JSON Schemas and its
 * Spectral rules) reads it: a valid AsyncAPI 3.0 document whose transports are the service's two stream
 * routes, carrying every channel of the service with that channel's own filters, and of which the
 * stream messages shown in docs/STREAMING.md are valid messages. That it is what api/openapi.yaml
 * generates now is tools/codegen/codegen.unit.test.ts's (every generated file).
 */
import fs from 'node:fs';
import { type AsyncAPIDocumentInterface, DiagnosticSeverity, type MessageInterface, Parser } from '@asyncapi/parser';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { parse, stringify } from 'yaml';
import { CHANNELS } from '../../services/streams/channels.js';
import { extractExamples } from '../support/doc-examples.js';

const source = fs.readFileSync(new URL('../../api/asyncapi.yaml', import.meta.url), 'utf8');
const streamingDoc = fs.readFileSync(new URL('../../docs/STREAMING.md', import.meta.url), 'utf8');
const NOT_FILTERS = new Set(['channel', 'cursor']);

/** JSON Schemas as the parser hands them out, read field by field. */
type Json = any;

/** The parse, with its errors and warnings as lines (infos and hints, e.g. "a newer AsyncAPI exists", left out). */
async function parseDocument(text: string): Promise<{ document: AsyncAPIDocumentInterface | undefined; problems: string[] }> {
  const { document, diagnostics } = await new Parser().parse(text);
  const problems = diagnostics
    .filter((d) => d.severity === DiagnosticSeverity.Error || d.severity === DiagnosticSeverity.Warning)
    .map((d) => `${d.code} at ${d.path.join('.')}: ${d.message}`);
  return { document, problems };
}

let document: AsyncAPIDocumentInterface;

const payloadJson = (message: MessageInterface): Json => message.payload()?.json();

beforeAll(async () => {
  const result = await parseDocument(source);
  expect(result.problems).toEqual([]);
  document = result.document!;
});

const payloadOf = (channel: string, name: string): Json => {
  const message = document
    .channels()
    .get(channel)
    ?.messages()
    .all()
    .find((m) => m.name() === name);
  return message && payloadJson(message);
};
const sseQuery = (): Json => document.operations().get('sendEvents')?.bindings().get('http')?.value().query;
const subscribePayload = (): Json => payloadOf('websocket', 'subscribe');

test('the document is AsyncAPI 3.0.0 and the parser finds no error or warning in it', () => {
  expect(document.version()).toBe('3.0.0');
});

test('the parser refuses a broken document (an operation whose channel is gone), so the check above can fail', async () => {
  const broken = parse(source);
  delete broken.channels.sse;
  const { problems } = await parseDocument(stringify(broken));
  expect(problems.join('\n')).toMatch(/sse/);
});

test("its transports are the service's stream routes: the WebSocket and Server-Sent Events", () => {
  const routes = document
    .channels()
    .all()
    .flatMap((channel) =>
      channel
        .servers()
        .all()
        .map((server) => [channel.id(), server.protocol(), `${server.pathname()}${channel.address()}`]),
    );
  expect(routes.sort()).toEqual([
    ['sse', 'http', '/v1/stream/sse'],
    ['websocket', 'ws', '/v1/stream'],
  ]);
  // The service receives the client frames on the socket and sends the server messages on both.
  const operations = document
    .operations()
    .all()
    .map((op) => [
      op.id(),
      op.action(),
      op
        .channels()
        .all()
        .map((c) => c.id()),
    ]);
  expect(operations.sort()).toEqual([
    ['receiveClientMessages', 'receive', ['websocket']],
    ['sendEvents', 'send', ['sse']],
    ['sendSocketMessages', 'send', ['websocket']],
  ]);
});

test('the channels it names are exactly the service channels', () => {
  const names = Object.keys(CHANNELS).sort();
  expect([...sseQuery().properties.channel.enum].sort()).toEqual(names);
  expect([...subscribePayload().properties.channel.enum].sort()).toEqual(names);
  expect([...payloadOf('websocket', 'subscribed').properties.channel.enum].sort()).toEqual(names);
  for (const message of document.messages().all()) {
    const channels: string[] = payloadJson(message)?.properties?.channel?.enum ?? [];
    for (const channel of channels)
      expect([message.name(), channel, Object.hasOwn(CHANNELS, channel)]).toEqual([message.name(), channel, true]);
  }
});

test.each(Object.values(CHANNELS).map((channel) => [channel.name, channel] as const))(
  'the channel %s is in the document with its own filters and its data messages on both transports',
  (name, channel) => {
    const filters = [...channel.filters].sort();
    // SSE: the query parameters that apply to it (no x-channels, or x-channels naming it).
    const query = Object.entries<Json>(sseQuery().properties)
      .filter(([parameter, schema]) => !NOT_FILTERS.has(parameter) && (!schema['x-channels'] || schema['x-channels'].includes(name)))
      .map(([parameter]) => parameter);
    expect(query.sort()).toEqual(filters);
    // WebSocket: one of the subscribe message's filter schemas is exactly its filters.
    const filterSchemas: Json[] = subscribePayload().properties.filters.anyOf;
    expect(filterSchemas.map((schema) => Object.keys(schema.properties).sort())).toContainEqual(filters);
    // Each transport sends at least one data message of the channel.
    for (const transport of ['websocket', 'sse']) {
      const data = document
        .channels()
        .get(transport)!
        .messages()
        .all()
        .filter((m) => {
          const channels = payloadJson(m)?.properties?.channel?.enum;
          return channels?.length === 1 && channels[0] === name;
        });
      expect([transport, data.length > 0]).toEqual([transport, true]);
    }
  },
);

/** The messages docs/STREAMING.md shows: its `json` blocks and the inline `{"type":...}` frames. */
function documentedMessages(): Array<{ where: string; message: Json }> {
  const blocks = extractExamples('docs/STREAMING.md', streamingDoc)
    .filter((example) => example.kind === 'json')
    .map((example) => ({ where: `docs/STREAMING.md:${example.line}`, message: JSON.parse(example.code) }));
  const inline = [...streamingDoc.matchAll(/`(\{"type":[^`]*\})`/g)].map((match) => ({
    where: `docs/STREAMING.md inline ${match[1]}`,
    message: JSON.parse(match[1]!),
  }));
  return [...blocks, ...inline];
}

test('every stream message docs/STREAMING.md shows is a valid message of the document', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  // A CommonJS module whose default export is also its `default` member.
  ajvFormats.default(ajv);
  const examples = documentedMessages();
  // A data message, a subscribe, an auth and an unsubscribe at least: an extraction that finds none fails.
  expect(new Set(examples.map(({ message }) => message.type))).toEqual(new Set(['trade', 'auth', 'subscribe', 'unsubscribe']));
  for (const { where, message } of examples) {
    const payload = payloadOf('websocket', message.type);
    expect([where, payload === undefined ? 'no such message' : 'found']).toEqual([where, 'found']);
    const validate = ajv.compile(payload);
    validate(message);
    expect([where, validate.errors ?? []]).toEqual([where, []]);
  }
});
