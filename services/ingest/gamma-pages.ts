/**
 * Paging through Gamma listings. The keyset endpoints (`/markets/keyset`, `/events/keyset`) answer
 * `{markets|events, next_cursor}`, take the cursor back as `after_cursor` and leave `next_cursor`
 * out on the last page; they have no offset cap, and the cursor of the last finished page is what a
 * resumable sync stores. Page sizes are upstream's maxima: 100 markets, 500 events.
 */
import type { Source } from '../events/types.js';
import type { UpstreamClient } from './upstream-client.js';

export type GammaListing = 'markets' | 'events';

const KEYSET_PAGE_SIZE: Record<GammaListing, number> = { markets: 100, events: 500 };

export interface KeysetPage {
  items: unknown[];
  source: Source;
  /** Where the next page starts; null after the last page. */
  nextCursor: string | null;
}

/** One page of `/<listing>/keyset?<query>` after `cursor` (null = the first page). */
export async function keysetPage(gamma: UpstreamClient, listing: GammaListing, query: string, cursor: string | null): Promise<KeysetPage> {
  const after = cursor ? `&after_cursor=${encodeURIComponent(cursor)}` : '';
  const { body, source } = await gamma.getJson<unknown>(`/${listing}/keyset?${query}&limit=${KEYSET_PAGE_SIZE[listing]}${after}`);
  const items = body && typeof body === 'object' ? (body as Record<string, unknown>)[listing] : undefined;
  if (!Array.isArray(items))
    throw new Error(`${gamma.name}/${listing}/keyset: expected {${listing}: [...]}, got ${JSON.stringify(body).slice(0, 120)}`);
  const next = (body as Record<string, unknown>).next_cursor;
  return { items, source, nextCursor: typeof next === 'string' && next !== '' ? next : null };
}

/** Every page of a keyset listing, from `cursor` on. */
export async function* keysetPages(
  gamma: UpstreamClient,
  listing: GammaListing,
  query: string,
  cursor: string | null = null,
): AsyncGenerator<KeysetPage> {
  let after = cursor;
  do {
    const page = await keysetPage(gamma, listing, query, after);
    yield page;
    after = page.nextCursor;
  } while (after !== null);
}
