/**
 * Clients of the live streams for tests (services/streams/): an SSE reader that parses events, a
 * WebSocket that keeps every message, and waits for the messages a test expects.
 *
 * Every message either client receives is checked against api/asyncapi.yaml (stream-contract.ts), and
 * an SSE event's framing too (its `event` is the message's type, its id the message's cursor). A
 * message that fails is still kept, and the test that received it fails when it ends (afterEach, and
 * afterAll for one that arrived after the file's last test), with the message and why: thrown from a
 * socket's listener instead, it would surface as an uncaught error of whichever test runs then.
 */
import http from 'node:http';
import WebSocket from 'ws';
import { waitFor as poll } from './http.js';
import { type StreamTransport, streamMessageProblem } from './stream-contract.js';

const contractProblems: string[] = [];
/** A broken server breaks every message alike: the first few say how. */
const SHOWN_PROBLEMS = 10;

function received(transport: StreamTransport, message: unknown): void {
  const problem = streamMessageProblem(transport, message);
  if (problem) contractProblems.push(problem);
}

function failOnContractProblems(): void {
  const found = contractProblems.splice(0);
  if (found.length === 0) return;
  const more = found.length > SHOWN_PROBLEMS ? `\n... and ${found.length - SHOWN_PROBLEMS} more` : '';
  throw new Error(`${found.length} stream message(s) not as api/asyncapi.yaml says:\n${found.slice(0, SHOWN_PROBLEMS).join('\n')}${more}`);
}
afterEach(failOnContractProblems);
afterAll(failOnContractProblems);

/** Polls `condition` every 20 ms for up to 20 s. */
export const waitFor = (what: string, condition: () => Promise<boolean>) => poll(async () => (await condition()) || null, 20_000, what, 20);

export interface SseClient {
  status: number;
  /** The error envelope of a refused request. */
  body: any;
  messages: any[];
  close(): void;
  ended: Promise<void>;
}

export function openSse(base: string, query: string, key: string | undefined, headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${base}/v1/stream/sse?${query}`,
      { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } },
      (response) => {
        const client: SseClient = {
          status: response.statusCode ?? 0,
          body: undefined,
          messages: [],
          close: () => request.destroy(),
          ended: new Promise((done) => response.on('close', () => done())),
        };
        let text = '';
        response.setEncoding('utf8');
        if (client.status !== 200) {
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => {
            client.body = JSON.parse(text);
            resolve(client);
          });
          return;
        }
        response.on('data', (chunk: string) => {
          text += chunk;
          let end = text.indexOf('\n\n');
          while (end >= 0) {
            const block = text.slice(0, end);
            text = text.slice(end + 2);
            const lines = block.split('\n');
            const data = lines.find((line) => line.startsWith('data: '));
            const id = lines.find((line) => line.startsWith('id: '));
            const event = lines.find((line) => line.startsWith('event: '));
            if (data) {
              const message = JSON.parse(data.slice(6));
              received('sse', message);
              // The event id is the message's cursor (what EventSource sends back as Last-Event-ID).
              if ((id?.slice(4) ?? null) !== (message.cursor ?? null))
                contractProblems.push(`sse event ${block}: its id is not the message's cursor`);
              if (event?.slice(7) !== message.type) contractProblems.push(`sse event ${block}: its event is not the message's type`);
              client.messages.push(message);
            }
            end = text.indexOf('\n\n');
          }
        });
        response.on('error', () => undefined);
        resolve(client);
      },
    );
    request.on('error', reject);
  });
}

export interface WsClient {
  ws: WebSocket;
  messages: any[];
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
}

/** A WebSocket to `url` (default: base's /v1/stream), with the key as the bearer header when given. */
export function openWs(base: string, key: string | undefined, url = `${base.replace('http', 'ws')}/v1/stream`): Promise<WsClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
    const client: WsClient = {
      ws,
      messages: [],
      closed: new Promise((done) => ws.on('close', (code, reason) => done({ code, reason: reason.toString() }))),
      send: (message) => ws.send(JSON.stringify(message)),
    };
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      received('websocket', message);
      client.messages.push(message);
    });
    ws.on('open', () => resolve(client));
    ws.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () =>
        reject(Object.assign(new Error(`refused ${response.statusCode}`), { status: response.statusCode, body: JSON.parse(body) })),
      );
    });
    ws.on('error', reject);
  });
}

/** The data messages of `type` a client received (optionally of one subscription). */
export const messagesOf = (client: { messages: any[] }, type: string, subscription?: string) =>
  client.messages.filter((m) => m.type === type && (!subscription || m.subscription === subscription));

export async function subscribed(client: { messages: any[] }, subscription?: string): Promise<any> {
  await waitFor('subscribed', async () =>
    client.messages.some((m) => m.type === 'subscribed' && (!subscription || m.subscription === subscription)),
  );
  return client.messages.find((m) => m.type === 'subscribed' && (!subscription || m.subscription === subscription));
}

export async function errorOf(client: { messages: any[] }): Promise<any> {
  await waitFor('an error message', async () => client.messages.some((m) => m.type === 'error'));
  return client.messages.find((m) => m.type === 'error');
}

/** A key below a channel's tier is refused it: 402 on SSE, a `payment_required` error (and no subscription) on the WebSocket. */
export async function expectChannelRefused(base: string, key: string, channel: string, sseQuery = `channel=${channel}`): Promise<void> {
  const sse = await openSse(base, sseQuery, key);
  expect(sse.status).toBe(402);
  expect(sse.body.code).toBe('PAYMENT_REQUIRED');
  const client = await openWs(base, key);
  client.send({ type: 'subscribe', channel, subscription: 'x' });
  expect(await errorOf(client)).toMatchObject({ code: 'payment_required', subscription: 'x' });
  expect(client.messages.some((m) => m.type === 'subscribed')).toBe(false);
  client.ws.close();
}
