/**
 * The UI's only way to data: /v1 with the session cookie (same origin, so the browser sends it;
 * page scripts never see the key), the session's CSRF token on every state-changing request, and
 * the API's envelope unwrapped. Failures carry the envelope's status, code and message.
 */
import type { Pagination } from '../../services/http/types.generated.js';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

function v1Url(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return `/v1${path}${search ? `?${search}` : ''}`;
}

interface Envelope {
  success?: boolean;
  data?: unknown;
  pagination?: Pagination;
  code?: string;
  error?: string;
}

async function call(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<Envelope> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  const response = await fetch(v1Url(path, options.query), {
    method,
    headers,
    credentials: 'same-origin',
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  let envelope: Envelope;
  try {
    envelope = (await response.json()) as Envelope;
  } catch {
    throw new ApiFailure(response.status, 'INTERNAL_ERROR', `unexpected ${response.status} response from ${path}`);
  }
  if (!response.ok || envelope?.success !== true) {
    throw new ApiFailure(response.status, String(envelope?.code ?? 'INTERNAL_ERROR'), String(envelope?.error ?? response.statusText));
  }
  return envelope;
}

export async function get<T>(path: string, query?: Query): Promise<T> {
  return (await call('GET', path, { query })).data as T;
}

export async function getPage<T>(path: string, query?: Query): Promise<{ data: T[]; pagination: Pagination }> {
  const envelope = await call('GET', path, { query });
  return { data: envelope.data as T[], pagination: envelope.pagination! };
}

export async function send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  return (await call(method, path, { body })).data as T;
}
