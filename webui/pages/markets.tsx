/** Markets: search and list (GET /v1/markets), a page at a time with the API's cursor. */
import { useEffect, useState } from 'preact/hooks';
import type { Market } from '../../services/http/types.generated.js';
import { ErrorNote, Link, Loading, Page } from '../components/ui.js';
import { ApiFailure, getPage } from '../lib/api.js';
import { formatCompactUsd, formatPrice, formatTime } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { navigate, useLocation } from '../lib/router.js';

const PAGE_SIZE = 25;

export function MarketsPage() {
  const { query } = useLocation();
  const search = query.get('search') ?? '';
  const status = query.get('status') ?? 'active';
  const sort = query.get('sort') ?? 'volume';
  const [markets, setMarkets] = useState<Market[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async (after: string | null) => {
    setBusy(true);
    try {
      const page = await getPage<Market>('/markets', { search, status, sort, limit: PAGE_SIZE, cursor: after });
      setMarkets((current) => (after && current ? [...current, ...page.data] : page.data));
      setCursor(page.pagination.next_cursor);
      setError(null);
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'NETWORK', String(failure)));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    setMarkets(null);
    void load(null);
  }, [search, status, sort]);
  useEffect(() => {
    if (markets) markReady();
  }, [markets]);

  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const params = new URLSearchParams();
    for (const name of ['search', 'status', 'sort']) {
      const value = String(form.get(name) ?? '').trim();
      if (value) params.set(name, value);
    }
    navigate(`/app/markets?${params}`);
  };

  return (
    <Page title="Markets">
      <form class="filters" onSubmit={submit} aria-label="Search markets">
        <div>
          <label for="market-search">Search</label>
          <input id="market-search" name="search" type="search" defaultValue={search} maxLength={200} placeholder="title, slug or event" />
        </div>
        <div>
          <label for="market-status">Status</label>
          <select id="market-status" name="status" defaultValue={status}>
            <option value="active">Active</option>
            <option value="closed">Closed (awaiting resolution)</option>
            <option value="resolved">Resolved</option>
            <option value="all">All</option>
          </select>
        </div>
        <div>
          <label for="market-sort">Sort</label>
          <select id="market-sort" name="sort" defaultValue={sort}>
            <option value="volume">24h volume</option>
            <option value="volume_total">Total volume</option>
            <option value="liquidity">Liquidity</option>
            <option value="created">Newest</option>
            <option value="end_date">Ending soonest</option>
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={error} what="Markets" />
      {!markets && !error && <Loading what="markets" />}
      {markets &&
        (markets.length === 0 ? (
          <p class="muted">No markets match.</p>
        ) : (
          <table class="markets">
            <caption class="sr-only">Markets</caption>
            <thead>
              <tr>
                <th scope="col">Market</th>
                <th scope="col" class="num">
                  YES
                </th>
                <th scope="col" class="num">
                  24h volume
                </th>
                <th scope="col" class="num">
                  Liquidity
                </th>
                <th scope="col">Ends</th>
              </tr>
            </thead>
            <tbody>
              {markets.map((m) => (
                <tr key={m.id}>
                  <td>
                    <Link href={`/app/markets/${encodeURIComponent(m.slug)}`}>{m.title || m.slug}</Link>
                    <div class="hint">
                      {m.category} · {m.status}
                      {m.source === 'simulator' ? ' · source: simulator' : ''}
                    </div>
                  </td>
                  <td class="num">{formatPrice(m.yes_price)}</td>
                  <td class="num">{formatCompactUsd(m.volume_24h_usdc)}</td>
                  <td class="num">{formatCompactUsd(m.liquidity_usdc)}</td>
                  <td>{formatTime(m.end_date ?? null).slice(0, 10)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      {cursor && (
        <button type="button" class="secondary" disabled={busy} onClick={() => void load(cursor)}>
          Load more
        </button>
      )}
    </Page>
  );
}
