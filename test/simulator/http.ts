/** Small HTTP helpers for the simulator integration tests. */

export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export async function getJson<T = unknown>(url: string, init?: RequestInit): Promise<JsonResponse<T>> {
  const response = await fetch(url, init);
  const body = (await response.json()) as T;
  return { status: response.status, headers: response.headers, body };
}

export async function postJson<T = unknown>(url: string, payload: unknown): Promise<JsonResponse<T>> {
  return getJson<T>(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
}

export type Row = Record<string, unknown>;
