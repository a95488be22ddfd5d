/**
 * Traders: find a wallet by its address, and the leaderboard (GET /v1/leaderboard) ranked by the
 * measure and window picked, a page at a time with the API's cursor; with a minimum volume or number
 * of trades the ranked directory (GET /v1/traders/browse) is read instead, which takes those filters.
 */
import { useEffect, useState } from 'preact/hooks';
import type { LeaderEntry } from '../../services/http/types.generated.js';
import { ErrorNote, Gate, Link, Loading, Page } from '../components/ui.js';
import { ApiFailure, getPage } from '../lib/api.js';
import { formatInteger, formatPct, formatTime, formatUsd, shortId } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { navigate, useLocation } from '../lib/router.js';

const PAGE_SIZE = 25;
const WALLET = /^0x[0-9a-fA-F]{40}$/;

const SORTS = [
  ['total_realized_pnl', 'Realized PnL'],
  ['total_pnl', 'Total PnL'],
  ['volume', 'Volume'],
  ['win_rate_pct', 'Win rate'],
  ['risk_score', 'Risk score (lowest first)'],
] as const;

export function TradersPage() {
  return (
    <Page title="Traders">
      <FindTrader />
      <Gate operation="GET /v1/leaderboard" what="The leaderboard">
        <Leaderboard />
      </Gate>
    </Page>
  );
}

function FindTrader() {
  const [problem, setProblem] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const wallet = String(new FormData(event.currentTarget as HTMLFormElement).get('wallet') ?? '').trim();
    if (!WALLET.test(wallet)) {
      setProblem('A wallet address is 0x followed by 40 hexadecimal characters.');
      return;
    }
    setProblem('');
    navigate(`/app/traders/${wallet.toLowerCase()}`);
  };
  return (
    <form class="filters" onSubmit={submit} aria-label="Find a trader">
      <div>
        <label for="trader-wallet">Wallet address</label>
        <input id="trader-wallet" name="wallet" class="mono" size={44} maxLength={42} placeholder="0x…" autoComplete="off" />
      </div>
      <button type="submit">Open trader</button>
      {problem && (
        <p class="note error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

function Leaderboard() {
  const { query } = useLocation();
  const sortBy = query.get('sort_by') ?? 'total_realized_pnl';
  const boardWindow = query.get('window') ?? 'all';
  const category = query.get('category') ?? '';
  const minVolume = query.get('min_volume') ?? '';
  const minTrades = query.get('min_trades') ?? '';
  const filtered = minVolume !== '' || minTrades !== '';
  const [entries, setEntries] = useState<LeaderEntry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);

  const load = async (after: string | null) => {
    setBusy(true);
    try {
      const page = await getPage<LeaderEntry>(filtered ? '/traders/browse' : '/leaderboard', {
        sort_by: sortBy,
        window: boardWindow,
        category,
        min_volume: minVolume,
        min_trades: minTrades,
        limit: PAGE_SIZE,
        cursor: after,
      });
      setEntries((current) => (after && current ? [...current, ...page.data] : page.data));
      setCursor(page.pagination.next_cursor);
      setError(null);
    } catch (failure) {
      setEntries((current) => current ?? []);
      setError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'NETWORK', String(failure)));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    setEntries(null);
    void load(null);
  }, [sortBy, boardWindow, category, minVolume, minTrades]);
  useEffect(() => {
    if (entries) markReady();
  }, [entries]);

  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const params = new URLSearchParams();
    for (const name of ['sort_by', 'window', 'category', 'min_volume', 'min_trades']) {
      const value = String(form.get(name) ?? '').trim();
      if (value) params.set(name, value);
    }
    navigate(`/app/traders?${params}`);
  };

  return (
    <section class="panel" aria-labelledby="leaderboard-heading">
      <h2 id="leaderboard-heading">Leaderboard</h2>
      <form class="filters" onSubmit={submit} aria-label="Rank traders">
        <div>
          <label for="board-sort">Rank by</label>
          <select id="board-sort" name="sort_by" defaultValue={sortBy}>
            {SORTS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="board-window">Window</label>
          <select id="board-window" name="window" defaultValue={boardWindow}>
            <option value="all">Everything indexed</option>
            <option value="30d">Last 30 days (realized PnL, volume)</option>
          </select>
        </div>
        <div>
          <label for="board-category">Category</label>
          <input id="board-category" name="category" defaultValue={category} maxLength={100} placeholder="any" />
        </div>
        <div>
          <label for="board-min-volume">Minimum volume (USDC)</label>
          <input id="board-min-volume" name="min_volume" type="number" min={0} step="any" defaultValue={minVolume} />
        </div>
        <div>
          <label for="board-min-trades">Minimum trades</label>
          <input id="board-min-trades" name="min_trades" type="number" min={0} step={1} defaultValue={minTrades} />
        </div>
        <button type="submit">Rank</button>
      </form>
      <ErrorNote error={error} what="Leaderboard" />
      {!entries && !error && <Loading what="the leaderboard" />}
      {entries &&
        !error &&
        (entries.length === 0 ? (
          <p class="muted">No trader matches.</p>
        ) : (
          <>
            {entries.some((e) => e.wallet_predates) && (
              <p class="note">
                <strong>Partial history:</strong> these wallets were active before the chain coverage starts, so their figures miss part of
                their history (each trader page says from when the figures are whole).
              </p>
            )}
            <table data-testid="leaderboard">
              <caption class="sr-only">Traders ranked by {SORTS.find(([value]) => value === sortBy)?.[1] ?? sortBy}</caption>
              <thead>
                <tr>
                  <th scope="col" class="num">
                    #
                  </th>
                  <th scope="col">Wallet</th>
                  <th scope="col" class="num">
                    Total PnL
                  </th>
                  <th scope="col" class="num">
                    Realized
                  </th>
                  <th scope="col" class="num">
                    Volume
                  </th>
                  <th scope="col" class="num">
                    Win rate
                  </th>
                  <th scope="col" class="num">
                    Risk
                  </th>
                  <th scope="col" class="num">
                    Trades
                  </th>
                  <th scope="col">Last trade</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e, i) => (
                  <tr key={e.wallet}>
                    <td class="num">{e.rank ?? i + 1}</td>
                    <td>
                      <Link href={`/app/traders/${e.wallet}`} class="mono" title={e.wallet}>
                        {shortId(e.wallet, 8, 6)}
                      </Link>
                      {e.wallet_predates && (
                        <>
                          {' '}
                          <span class="badge">partial history</span>
                        </>
                      )}
                    </td>
                    <td class="num">{formatUsd(e.total_pnl)}</td>
                    <td class="num">{formatUsd(e.total_realized_pnl)}</td>
                    <td class="num">{formatUsd(e.volume_usdc)}</td>
                    <td class="num">{formatPct(e.win_rate_pct)}</td>
                    <td class="num">{formatInteger(e.risk_score)}</td>
                    <td class="num">{formatInteger(e.trades)}</td>
                    <td>{formatTime(e.last_trade_at ?? null)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ))}
      {cursor && !error && (
        <button type="button" class="secondary" disabled={busy} onClick={() => void load(cursor)}>
          Load more
        </button>
      )}
      <p class="hint">
        Figures cover what the service has indexed (each trader page says from which block); ranks are served from the last board build and
        are at most a valuation pass behind the ledger.
      </p>
    </section>
  );
}
