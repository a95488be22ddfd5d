/** Generated sources are never stale: a schema or API-document edit without `npm run gen` fails here. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { staleFiles } from './main.js';
import { readApiDocument } from './openapi-document.js';

test('every generated file matches what its source generates now (run `npm run gen`)', () => {
  expect(staleFiles()).toEqual([]);
});

test('an operation without an operationId is refused, naming it (SDK and MCP names come from it)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-codegen-'));
  const file = path.join(dir, 'openapi.yaml');
  const responses = { '200': { description: 'ok' } };
  const document = (cancel: Record<string, unknown>) => ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/paper/orders': { get: { operationId: 'listPaperOrders', summary: 's', responses } },
      '/paper/orders/{order_id}/cancel': { post: { ...cancel, summary: 's', responses } },
    },
  });
  try {
    fs.writeFileSync(file, JSON.stringify(document({})));
    expect(() => readApiDocument(file)).toThrow('POST /paper/orders/{order_id}/cancel has no operationId');
    fs.writeFileSync(file, JSON.stringify(document({ operationId: 'cancelPaperOrder' })));
    expect(readApiDocument(file).operations.map((op) => op.id)).toEqual(['listPaperOrders', 'cancelPaperOrder']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('streams (an event stream, a protocol switch) get no SDK operation; event streams are listed apart', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-codegen-'));
  const file = path.join(dir, 'openapi.yaml');
  try {
    fs.writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/trades': { get: { operationId: 'listTrades', summary: 's', responses: { '200': { description: 'ok' } } } },
          '/stream/sse': {
            get: {
              operationId: 'streamEvents',
              summary: 's',
              responses: { '200': { description: 'ok', content: { 'text/event-stream': { schema: {} } } } },
            },
          },
          '/stream': { get: { operationId: 'streamSocket', summary: 's', responses: { '101': { description: 'switching' } } } },
        },
      }),
    );
    const document = readApiDocument(file);
    expect(document.operations.map((op) => op.id)).toEqual(['listTrades']);
    // The event stream's parameters are kept for the stream helpers; the WebSocket is not a table entry.
    expect(document.streams.map((op) => [op.id, op.path])).toEqual([['streamEvents', '/stream/sse']]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a response that is a file (every media type a binary string) is a binary operation with no envelope data', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-codegen-'));
  const file = path.join(dir, 'openapi.yaml');
  const binary = { type: 'string', format: 'binary' };
  const envelope = { type: 'object', properties: { success: { const: true }, data: { type: 'string' } } };
  const operation = (id: string, content: Record<string, unknown>) => ({
    get: { operationId: id, summary: 's', responses: { '200': { description: 'ok', content } } },
  });
  try {
    fs.writeFileSync(
      file,
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: {
          '/file': operation('downloadFile', {
            'application/vnd.apache.parquet': { schema: binary },
            'application/json': { schema: binary },
          }),
          '/json': operation('getJson', { 'application/json': { schema: envelope } }),
          '/mixed': operation('getMixed', { 'text/csv': { schema: binary }, 'application/json': { schema: envelope } }),
        },
      }),
    );
    const operations = readApiDocument(file).operations.map((op) => [op.id, op.binary, op.data]);
    expect(operations).toEqual([
      ['downloadFile', true, {}],
      ['getJson', false, { type: 'string' }],
      ['getMixed', false, { type: 'string' }],
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
