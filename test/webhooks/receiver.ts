/** A scripted webhook receiver on 127.0.0.1 for tests: each path answers one way and every request is recorded. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: ReceivedRequest[];
  /** Requests to `path`. */
  at(path: string): ReceivedRequest[];
  /** Overrides the answer of a path (status; headers optional). */
  script(path: string, answer: { status: number; headers?: Record<string, string> } | 'hang'): void;
  close(): Promise<void>;
}

const DEFAULT_SCRIPT: Record<string, { status: number; headers?: Record<string, string> } | 'hang'> = {
  '/ok': { status: 204 },
  '/fail500': { status: 500 },
  '/hang': 'hang',
  '/throttle': { status: 429, headers: { 'retry-after': '1' } },
  '/gone': { status: 410 },
  '/redirect': { status: 302, headers: { location: '/ok' } },
};

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const script = { ...DEFAULT_SCRIPT };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0]!;
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = script[path] ?? { status: 404 };
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      response.writeHead(answer.status, answer.headers ?? {});
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    script: (path, answer) => {
      script[path] = answer;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
