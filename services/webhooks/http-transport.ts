/**
 * Sends one delivery over node:http(s) with the SSRF guard at connect time: literal IPs are checked
 * before connecting, names through the agent's lookup, so every address actually dialled is checked.
 * Redirects are never followed (node:http does not follow them), the whole exchange is bounded by a
 * timeout, and the response body is drained but not kept.
 */
import http from 'node:http';
import https from 'node:https';
import type { AttemptOutcome } from './retry-policy.js';
import { UnsafeUrlError, type UrlGuard } from './url-guard.js';

interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type Transport = (request: OutgoingRequest, timeoutMs: number) => Promise<AttemptOutcome>;

export interface HttpTransport {
  send: Transport;
  close(): void;
}

export function createHttpTransport(guard: UrlGuard): HttpTransport {
  const lookup = guard.lookup();
  // Keep-alive: a busy receiver gets many deliveries; reconnecting for each would dominate latency.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, lookup, maxSockets: 64 }),
  };

  const send: Transport = async (request, timeoutMs) => {
    let url: URL;
    try {
      url = await guard.check(request.url);
    } catch (error) {
      return { kind: 'error', message: error instanceof UnsafeUrlError ? `blocked: ${error.message}` : String(error) };
    }
    const protocol = url.protocol as 'http:' | 'https:';
    const client = protocol === 'https:' ? https : http;
    return new Promise<AttemptOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const outgoing = client.request(
        url,
        {
          method: 'POST',
          agent: agents[protocol],
          headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        },
        (response) => {
          const status = response.statusCode ?? 0;
          const retryAfter = headerValue(response.headers['retry-after']);
          response.resume();
          response.once('end', () => finish({ kind: 'response', status, retryAfter }));
          response.once('error', () => finish({ kind: 'response', status, retryAfter }));
        },
      );
      const timer = setTimeout(() => {
        finish({ kind: 'timeout' });
        outgoing.destroy();
      }, timeoutMs);
      outgoing.once('error', (error) => {
        const message =
          error instanceof UnsafeUrlError
            ? `blocked: ${error.message}`
            : `connection failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`;
        finish({ kind: 'error', message });
      });
      outgoing.end(request.body);
    });
  };

  return {
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
