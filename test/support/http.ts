/** Tiny JSON HTTP helpers for tests (fetch against 127.0.0.1 only). */
import http from 'node:http';
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function getJson<T = any>(url: string, apiKey?: string): Promise<JsonResponse<T>> {
  const response = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

export async function postJson<T = any>(
  url: string,
  body: unknown,
  init: { raw?: string; apiKey?: string } = {},
): Promise<JsonResponse<T>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.apiKey ? { authorization: `Bearer ${init.apiKey}` } : {}) },
    body: init.raw ?? JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

/** Any method with an optional JSON body and an API key (routes that take PUT, PATCH or DELETE). */
export async function requestJson<T = any>(method: string, url: string, apiKey: string, body?: unknown): Promise<JsonResponse<T>> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

/** Polls `probe` until it returns a truthy value or the deadline passes (no fixed sleeps in tests). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  timeoutMs: number,
  what: string,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Follows next_cursor to the end; returns every item and the number of pages. */
export async function walkPages<T = any>(
  firstUrl: string,
  apiKey: string,
  maxPages = 10_000,
): Promise<{ items: T[]; pages: number; lastPage: any }> {
  const items: T[] = [];
  let url = firstUrl;
  for (let pages = 1; pages <= maxPages; pages++) {
    const { status, body } = await getJson(url, apiKey);
    if (status !== 200) throw new Error(`page ${pages}: HTTP ${status} ${JSON.stringify(body)}`);
    items.push(...body.data);
    if (!body.pagination.has_more) return { items, pages, lastPage: body };
    const next = new URL(url);
    next.searchParams.set('cursor', body.pagination.next_cursor);
    url = next.toString();
  }
  throw new Error('too many pages');
}

/**
 * A request from a chosen loopback source address (127.0.0.0/8 is all loopback on Linux): how tests
 * play distinct clients of per-address limits while still contacting only 127.0.0.1.
 */
export function requestFrom<T = any>(
  sourceAddress: string,
  url: string,
  init: { method?: string; apiKey?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T> & { raw: string }> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const request = http.request(
      url,
      {
        method: init.method ?? (body ? 'POST' : 'GET'),
        localAddress: sourceAddress,
        agent: false,
        headers: {
          ...(init.apiKey ? { authorization: `Bearer ${init.apiKey}` } : {}),
          ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
          ...init.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            // Set-Cookie comes as an array; Headers keeps each value.
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
          }
          let parsed: any = null;
          try {
            parsed = JSON.parse(raw);
          } catch {
            parsed = null;
          }
          resolve({ status: response.statusCode ?? 0, body: parsed as T, headers, raw });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
