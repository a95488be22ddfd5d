/**
 * One market: header figures (GET /v1/markets/{id}), candles with volume (ohlcv), the live order book
 * (top 20 a side, spread in bps: the REST book, then every change from the `book` stream channel),
 * and - for keys that may call them - recent trades (the REST tape, then each new trade from the
 * `trades` channel), holders and open interest. Nothing polls: the streams push what changes.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Candle, Holders, MarketDetail, OpenInterest, OrderBook, Trade } from '../../services/http/types.generated.js';
import { Chart } from '../components/chart.js';
import { ErrorNote, Gate, Link, Loading, Page, SourceBadge, Stats } from '../components/ui.js';
import { get, getPage } from '../lib/api.js';
import { formatCompactUsd, formatInteger, formatPrice, formatShares, formatTime, formatUsd, shortId } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { applyBookMessage, bookView, type LiveBook } from '../lib/live-book.js';
import { useApi } from '../lib/use-api.js';
import { type StreamState, useStream } from '../lib/use-stream.js';

const RECENT_TRADES = 25;
const BOOK_MESSAGES = ['book_snapshot', 'book_delta'] as const;
const TRADE_MESSAGES = ['trade'] as const;

/** What a panel says of its stream. */
function StreamNote(props: { state: StreamState; paused?: boolean; what: string }) {
  const text = props.paused
    ? 'Paused.'
    : props.state === 'live'
      ? `Live: ${props.what} as they happen.`
      : props.state === 'connecting'
        ? 'Connecting to the live stream…'
        : 'Live updates stopped (the stream was refused or ended); reload the page to try again.';
  return (
    <p class="hint" data-stream={props.paused ? 'paused' : props.state}>
      {text}
    </p>
  );
}

export function MarketPage(props: { id: string }) {
  const id = encodeURIComponent(props.id);
  const market = useApi(() => get<MarketDetail>(`/markets/${id}`), [id]);
  const [interval, setCandleInterval] = useState<'5m' | '1h' | '1d'>('1h');
  const candles = useApi(() => get<Candle[]>(`/markets/${id}/ohlcv`, { interval, limit: 168 }), [id, interval]);
  const [chartDrawn, setChartDrawn] = useState(false);
  const m = market.data;

  useEffect(() => {
    if (m && candles.data && (chartDrawn || candles.data.length === 0)) markReady();
  }, [m, candles.data, chartDrawn]);

  if (!m) {
    return (
      <Page title="Market">
        <ErrorNote error={market.error} what="Market" />
        {!market.error && <Loading what="the market" />}
      </Page>
    );
  }

  return (
    <Page title={m.title}>
      <p>
        <Link href="/app/markets">← Markets</Link> <SourceBadge source={m.source} />
      </p>
      <Stats
        items={[
          ['Status', m.resolved_outcome ? `resolved: ${m.resolved_outcome}` : m.status],
          ['YES', formatPrice(m.yes_price)],
          ['NO', formatPrice(m.no_price)],
          ['24h volume', formatCompactUsd(m.volume_24h_usdc)],
          ['Liquidity', formatCompactUsd(m.liquidity_usdc)],
          ['Last indexed trade', `${formatPrice(m.snapshot.last_trade_price)} at ${formatTime(m.snapshot.last_trade_at)}`],
          ['Trades (24h / all)', `${formatInteger(m.snapshot.trades_24h)} / ${formatInteger(m.snapshot.trades_total)}`],
          ['Ends', formatTime(m.end_date ?? null)],
        ]}
      />

      <section class="panel" aria-labelledby="candles-heading">
        <div class="row spread">
          <h2 id="candles-heading">YES price candles</h2>
          <div class="row">
            <label for="candle-interval">Interval</label>
            <select id="candle-interval" value={interval} onChange={(e) => setCandleInterval(e.currentTarget.value as typeof interval)}>
              <option value="5m">5 minutes</option>
              <option value="1h">1 hour</option>
              <option value="1d">1 day</option>
            </select>
          </div>
        </div>
        <ErrorNote error={candles.error} what="Candles" />
        {candles.data &&
          (candles.data.length === 0 ? (
            <p class="muted">No trades indexed in this range yet.</p>
          ) : (
            <Chart
              label={`${candles.data.length} ${interval} candles of the YES price with volume; last close ${formatPrice(candles.data.at(-1)!.close)}.`}
              deps={[candles.data]}
              height={360}
              draw={(charts, element) => charts.drawCandles(element, candles.data!)}
              onDrawn={() => setChartDrawn(true)}
            />
          ))}
      </section>

      <div class="columns">
        <Book id={id} outcomes={m.outcomes} />
        <div>
          <Gate operation="GET /v1/markets/{id}/trades" what="Recent trades">
            <RecentTrades id={id} />
          </Gate>
        </div>
      </div>
      <div class="columns">
        <Gate operation="GET /v1/markets/{id}/holders" what="Holders">
          <TopHolders id={id} />
        </Gate>
        <Gate operation="GET /v1/markets/{id}/oi" what="Open interest">
          <OpenInterestPanel id={id} />
        </Gate>
      </div>
    </Page>
  );
}

function Book(props: { id: string; outcomes: string[] }) {
  const book = useApi(() => get<OrderBook>(`/markets/${props.id}/orderbook`), [props.id]);
  const [live, setLive] = useState(true);
  const [outcomeIndex, setOutcomeIndex] = useState(0);
  // Each token's book as the stream rebuilds it (a snapshot on subscribe, then its changes).
  const [books, setBooks] = useState<Map<string, LiveBook>>(new Map());
  const [applied, setApplied] = useState(0);
  const stream = useStream(live ? `channel=book&market=${props.id}` : null, BOOK_MESSAGES, (message) => {
    if (message.type !== 'book_snapshot' && message.type !== 'book_delta') return;
    setBooks((current) => applyBookMessage(current, message));
    setApplied((count) => count + 1);
  });
  const rest = book.data?.outcomes[outcomeIndex] ?? book.data?.outcomes[0];
  const rebuilt = rest && books.get(rest.asset_id);
  const side = rest && (rebuilt ? { ...rest, ...bookView(rebuilt), timestamp: rebuilt.timestamp } : rest);

  return (
    <section class="panel" aria-labelledby="book-heading">
      <div class="row spread">
        <h2 id="book-heading">Order book</h2>
        <button type="button" class="secondary" aria-pressed={live} onClick={() => setLive(!live)}>
          {live ? 'Live: pause' : 'Paused: resume'}
        </button>
      </div>
      <p class="hint">
        Top 20 levels a side: the stored book, then every level change from the book stream (one metered call per connection).
      </p>
      <StreamNote state={stream} paused={!live} what="level changes" />
      {book.data && book.data.outcomes.length > 1 && (
        <div class="row">
          <label for="book-outcome">Outcome</label>
          <select id="book-outcome" value={outcomeIndex} onChange={(e) => setOutcomeIndex(Number(e.currentTarget.value))}>
            {book.data.outcomes.map((o, i) => (
              <option key={o.asset_id} value={i}>
                {o.outcome}
              </option>
            ))}
          </select>
        </div>
      )}
      <ErrorNote error={book.error} what="Order book" />
      {!book.data && !book.error && <Loading what="the book" />}
      {side && (
        <>
          <Stats
            items={[
              ['Best bid', formatPrice(side.best_bid)],
              ['Best ask', formatPrice(side.best_ask)],
              ['Spread', side.spread_bps === null ? '—' : `${formatInteger(side.spread_bps)} bps`],
              ['Book time', formatTime(side.timestamp)],
            ]}
          />
          <div class="book" data-testid="book" data-applied={applied}>
            <BookSide title="Bids" levels={side.bids} kind="bid" />
            <BookSide title="Asks" levels={side.asks} kind="ask" />
          </div>
          <p class="hint" aria-live="off">
            {props.outcomes.length} outcomes; showing {side.outcome}.
          </p>
        </>
      )}
    </section>
  );
}

function BookSide(props: { title: string; levels: Array<{ price: number; size_shares: number }>; kind: 'bid' | 'ask' }) {
  let cumulative = 0;
  return (
    <table class={`levels ${props.kind}`}>
      <caption>{props.title}</caption>
      <thead>
        <tr>
          <th scope="col" class="num">
            Price
          </th>
          <th scope="col" class="num">
            Shares
          </th>
          <th scope="col" class="num">
            Total
          </th>
        </tr>
      </thead>
      <tbody>
        {props.levels.map((level) => {
          cumulative += level.size_shares;
          return (
            <tr key={level.price}>
              <td class="num">{formatPrice(level.price)}</td>
              <td class="num">{formatShares(level.size_shares)}</td>
              <td class="num">{formatShares(cumulative)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function RecentTrades(props: { id: string }) {
  const trades = useApi(() => getPage<Trade>(`/markets/${props.id}/trades`, { limit: RECENT_TRADES }), [props.id]);
  // Trades the stream sent since the page opened, newest first; the tape shows them above the REST page, each once.
  const [streamed, setStreamed] = useState<Trade[]>([]);
  const stream = useStream(`channel=trades&market=${props.id}`, TRADE_MESSAGES, (message) => {
    if (message.type === 'trade') setStreamed((current) => [message.data, ...current].slice(0, RECENT_TRADES));
  });
  const shown = trades.data && newestOnce([...streamed, ...trades.data.data]);
  return (
    <section class="panel" aria-labelledby="trades-heading">
      <div class="row spread">
        <h2 id="trades-heading">Recent trades</h2>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            // The REST page is the tape as served now (a streamed trade may since be served as its chain record).
            setStreamed([]);
            void trades.reload();
          }}
        >
          Refresh
        </button>
      </div>
      <StreamNote state={stream} what="new trades" />
      <ErrorNote error={trades.error} what="Trades" />
      {shown &&
        (shown.length === 0 ? (
          <p class="muted">No trades indexed yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Side</th>
                <th scope="col">Outcome</th>
                <th scope="col" class="num">
                  Price
                </th>
                <th scope="col" class="num">
                  USDC
                </th>
                <th scope="col">Trader</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((t) => (
                <tr key={t.trade_id}>
                  <td>{t.timestamp.slice(11, 19)}</td>
                  <td class={t.side}>{t.side}</td>
                  <td>{t.outcome}</td>
                  <td class="num">{formatPrice(t.price)}</td>
                  <td class="num">{formatUsd(t.size_usdc)}</td>
                  <td>
                    <Link href={`/app/traders/${t.wallet}`}>
                      {shortId(t.wallet)}
                      <span class="sr-only"> (trader {t.wallet})</span>
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}

/** The trades newest first, each trade id once (a trade can be both on the REST page and streamed), at most RECENT_TRADES. */
function newestOnce(trades: Trade[]): Trade[] {
  const seen = new Set<string>();
  return trades
    .filter((t) => !seen.has(t.trade_id) && seen.add(t.trade_id))
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
    .slice(0, RECENT_TRADES);
}

function TopHolders(props: { id: string }) {
  const holders = useApi(() => get<Holders>(`/markets/${props.id}/holders`), [props.id]);
  return (
    <section class="panel" aria-labelledby="holders-heading">
      <h2 id="holders-heading">Top holders</h2>
      <ErrorNote error={holders.error} what="Holders" />
      {holders.data && <p class="hint">As of {formatTime(holders.data.as_of)}.</p>}
      {holders.data?.outcomes.map((o) => (
        <table key={o.asset_id}>
          <caption>{o.outcome}</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Wallet</th>
              <th scope="col" class="num">
                Shares
              </th>
            </tr>
          </thead>
          <tbody>
            {o.holders.slice(0, 10).map((h) => (
              <tr key={h.wallet}>
                <td>{h.rank}</td>
                <td>
                  <Link href={`/app/traders/${h.wallet}`}>
                    {shortId(h.wallet)}
                    <span class="sr-only"> (trader {h.wallet})</span>
                  </Link>
                </td>
                <td class="num">{formatShares(h.amount_shares)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </section>
  );
}

function OpenInterestPanel(props: { id: string }) {
  const oi = useApi(() => get<OpenInterest>(`/markets/${props.id}/oi`), [props.id]);
  const history = oi.data?.history ?? [];
  return (
    <section class="panel" aria-labelledby="oi-heading">
      <h2 id="oi-heading">Open interest</h2>
      <ErrorNote error={oi.error} what="Open interest" />
      {oi.data && (
        <>
          <Stats
            items={[
              ['Open interest', formatUsd(oi.data.open_interest_usdc)],
              ['As of', formatTime(oi.data.as_of)],
            ]}
          />
          <p class="hint">{oi.data.method}</p>
          {history.length > 1 && (
            <Chart
              label={`Open interest over ${history.length} snapshots, from ${formatUsd(history[0]!.open_interest_usdc)} to ${formatUsd(history.at(-1)!.open_interest_usdc)}.`}
              deps={[oi.data]}
              height={160}
              draw={(charts, element) =>
                charts.drawLine(
                  element,
                  [...history]
                    .sort((a, b) => a.timestamp.localeCompare(b.timestamp))
                    .map((p) => ({ time: p.timestamp, value: p.open_interest_usdc })),
                )
              }
            />
          )}
        </>
      )}
    </section>
  );
}
