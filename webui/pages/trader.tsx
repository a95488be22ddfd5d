/** A trader (wallet): lifetime and 30-day figures, the daily PnL curve and open positions (Tier 2 endpoints). */
import { useEffect, useState } from 'preact/hooks';
import type { PnlCurve, Positions, TraderCoverage, TraderStats } from '../../services/http/types.generated.js';
import { Chart } from '../components/chart.js';
import { ErrorNote, Gate, Link, Loading, Page, Stats } from '../components/ui.js';
import { get } from '../lib/api.js';
import { formatInteger, formatPct, formatPrice, formatShares, formatTime, formatUsd, shortId } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { useApi } from '../lib/use-api.js';

/** The largest open positions by value shown; the rest are counted. */
const POSITIONS_SHOWN = 100;

export function TraderPage(props: { wallet: string }) {
  return (
    <Page title={`Trader ${shortId(props.wallet, 8, 6)}`}>
      <p class="mono">{props.wallet}</p>
      <Gate operation="GET /v1/traders/{wallet}" what="Trader statistics, PnL and positions">
        <TraderDetail wallet={props.wallet} />
      </Gate>
    </Page>
  );
}

function TraderDetail(props: { wallet: string }) {
  const [days, setDays] = useState(30);
  const stats = useApi(() => get<TraderStats>(`/traders/${props.wallet}`), [props.wallet]);
  const pnl = useApi(() => get<PnlCurve>(`/traders/${props.wallet}/pnl`, { days }), [props.wallet, days]);
  const positions = useApi(() => get<Positions>(`/positions/${props.wallet}`, { limit: POSITIONS_SHOWN }), [props.wallet]);
  useEffect(() => {
    if (stats.data && pnl.data && positions.data) markReady();
  }, [stats.data, pnl.data, positions.data]);
  const s = stats.data;

  return (
    <>
      <ErrorNote error={stats.error} what="Statistics" />
      {!s && !stats.error && <Loading what="statistics" />}
      {s && (
        <>
          <Stats
            items={[
              ['Total PnL', formatUsd(s.lifetime.total_pnl)],
              ['Realized', formatUsd(s.lifetime.total_realized_pnl)],
              ['Unrealized', formatUsd(s.lifetime.unrealized_pnl)],
              ['Volume', formatUsd(s.lifetime.volume_usdc)],
              ['Trades', formatInteger(s.lifetime.trades)],
              ['Win rate', formatPct(s.lifetime.win_rate_pct)],
              ['Realized, 30 days', formatUsd(s.last_30d.total_realized_pnl)],
              ['Risk score', `${formatInteger(s.risk_score)} / 100`],
            ]}
          />
          <p class="hint">{s.basis}</p>
          <CoverageNote coverage={s.coverage} />
        </>
      )}
      <section class="panel" aria-labelledby="pnl-heading">
        <div class="row spread">
          <h2 id="pnl-heading">PnL curve (USDC, realized + unrealized at each UTC day's close)</h2>
          <div class="row">
            <label for="pnl-days">Days</label>
            <select id="pnl-days" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
              <option value={7}>7</option>
              <option value={30}>30</option>
              <option value={90}>90</option>
              <option value={365}>365</option>
            </select>
          </div>
        </div>
        <ErrorNote error={pnl.error} what="PnL" />
        {pnl.data && pnl.data.points.length > 0 && (
          <>
            <Chart
              label={`Total PnL over ${pnl.data.points.length} days, ending at ${formatUsd(pnl.data.points.at(-1)!.total)}.`}
              deps={[pnl.data]}
              draw={(charts, element) =>
                charts.drawLine(
                  element,
                  pnl.data!.points.map((p) => ({ time: p.date, value: p.total })),
                )
              }
            />
            <details>
              <summary>Days as a table</summary>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col" class="num">
                      Realized
                    </th>
                    <th scope="col" class="num">
                      Unrealized
                    </th>
                    <th scope="col" class="num">
                      Total
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {pnl.data.points.map((p) => (
                    <tr key={p.date}>
                      <td>{p.date}</td>
                      <td class="num">{formatUsd(p.realized)}</td>
                      <td class="num">{formatUsd(p.unrealized)}</td>
                      <td class="num">{formatUsd(p.total)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
          </>
        )}
      </section>
      <section class="panel" aria-labelledby="positions-heading">
        <h2 id="positions-heading">Open positions</h2>
        <ErrorNote error={positions.error} what="Positions" />
        {positions.data &&
          (positions.data.positions.length === 0 ? (
            <p class="muted">No open positions.</p>
          ) : (
            <>
              {positions.data.open_positions > positions.data.positions.length && (
                <p class="muted">
                  The {formatInteger(positions.data.positions.length)} largest by value of {formatInteger(positions.data.open_positions)}{' '}
                  open positions.
                </p>
              )}
              <table>
                <caption class="sr-only">Open positions as of {formatTime(positions.data.as_of)}</caption>
                <thead>
                  <tr>
                    <th scope="col">Market</th>
                    <th scope="col">Outcome</th>
                    <th scope="col" class="num">
                      Shares
                    </th>
                    <th scope="col" class="num">
                      Avg entry
                    </th>
                    <th scope="col" class="num">
                      Mark
                    </th>
                    <th scope="col" class="num">
                      Unrealized
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {positions.data.positions.map((p) => (
                    <tr key={p.asset_id}>
                      <td>
                        {/* A market the catalog has not listed yet has no title: its id keeps the link readable. */}
                        <Link href={`/app/markets/${p.market_id}`}>{p.market_title || `Market ${shortId(p.market_id)}`}</Link>
                      </td>
                      <td>{p.outcome}</td>
                      <td class="num">{formatShares(p.size_shares)}</td>
                      <td class="num">{formatPrice(p.avg_entry_price)}</td>
                      <td class="num">{formatPrice(p.mark_price)}</td>
                      <td class="num">{formatUsd(p.unrealized_pnl_usdc)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ))}
      </section>
    </>
  );
}

/** From when the figures are whole, and whether this wallet was active before (api/openapi.yaml TraderCoverage). */
function CoverageNote(props: { coverage: TraderCoverage }) {
  const c = props.coverage;
  const span =
    c.from_time === null
      ? 'No chain coverage: the figures are the Data API’s taker trades only (no maker fills).'
      : c.complete
        ? `Complete history: every settlement event from the contracts’ first block to ${formatTime(c.to_time)}.`
        : `Whole from ${formatTime(c.from_time)} (block ${formatInteger(c.from_block)}) to ${formatTime(c.to_time)}; earlier history is partial.`;
  return (
    <p class="note">
      <strong>Coverage:</strong> {span}
      {c.wallet_predates && ' This wallet was active before the coverage starts, so its figures miss part of its history.'}
    </p>
  );
}
