/** Usage: today's quota, used, remaining and credits (GET /v1/usage), calls and refusals per day, and the latest refused calls. */
import { useEffect } from 'preact/hooks';
import type { Refusal, Usage, UsageDay } from '../../services/http/types.generated.js';
import { Chart } from '../components/chart.js';
import { ErrorNote, Loading, Page, Stats } from '../components/ui.js';
import { get, getPage } from '../lib/api.js';
import { formatInteger, formatTime } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { useApi } from '../lib/use-api.js';

export function UsagePage() {
  const usage = useApi(() => get<Usage>('/usage'), []);
  const history = useApi(() => get<UsageDay[]>('/usage/history', { days: 30 }), []);
  const refusals = useApi(() => getPage<Refusal>('/usage/refusals', { limit: 20 }), []);
  useEffect(() => {
    if (usage.data && history.data && refusals.data) markReady();
  }, [usage.data, history.data, refusals.data]);

  const u = usage.data;
  return (
    <Page title="Usage">
      <ErrorNote error={usage.error} what="Usage" />
      {u ? (
        <Stats
          items={[
            ['Tier', u.tier === 'sandbox' ? 'Sandbox' : `Tier ${u.tier}`],
            ['Daily quota', formatInteger(u.quota)],
            ['Used today', formatInteger(u.used)],
            ['Remaining', formatInteger(u.remaining)],
            ['Credits', formatInteger(u.credits_balance)],
            ['Rate limit', `${u.rate_limit.requests_per_second}/s (burst ${u.rate_limit.burst})`],
            ['Resets', formatTime(u.period_end)],
          ]}
        />
      ) : (
        !usage.error && <Loading what="usage" />
      )}
      {u && (
        <p class="hint">
          Past the quota each call draws {u.credits_per_call_over_quota} credit(s); with none left calls get 402 PAYMENT_REQUIRED until the
          UTC day ends.
        </p>
      )}

      <section class="panel" aria-labelledby="daily-heading">
        <h2 id="daily-heading">Calls per day (last 30 days, UTC)</h2>
        <ErrorNote error={history.error} what="History" />
        {history.data && (
          <>
            <Chart
              label={`Metered calls per day over ${history.data.length} days; ${history.data.reduce((n, d) => n + d.calls, 0)} in total. Red days had refused calls.`}
              deps={[history.data]}
              height={200}
              draw={(charts, element) =>
                charts.drawBars(
                  element,
                  history.data!.map((d) => ({ day: d.date, value: d.calls, alert: d.refused_402 + d.refused_429 > 0 })),
                )
              }
            />
            <details>
              <summary>Days as a table</summary>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Day</th>
                    <th scope="col">Calls</th>
                    <th scope="col">Credits spent</th>
                    <th scope="col">402 refused</th>
                    <th scope="col">429 refused</th>
                  </tr>
                </thead>
                <tbody>
                  {[...history.data].reverse().map((d) => (
                    <tr key={d.date}>
                      <td>{d.date}</td>
                      <td class="num">{formatInteger(d.calls)}</td>
                      <td class="num">{formatInteger(d.credits_spent)}</td>
                      <td class="num">{formatInteger(d.refused_402)}</td>
                      <td class="num">{formatInteger(d.refused_429)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
          </>
        )}
      </section>

      <section class="panel" aria-labelledby="refusals-heading">
        <h2 id="refusals-heading">Recent refused calls (402, 429)</h2>
        <ErrorNote error={refusals.error} what="Refusals" />
        {refusals.data &&
          (refusals.data.data.length === 0 ? (
            <p class="muted">No refused calls.</p>
          ) : (
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Status</th>
                  <th scope="col">Call</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {refusals.data.data.map((r) => (
                  <tr key={r.id}>
                    <td>{formatTime(r.at)}</td>
                    <td>
                      {r.status} {r.code}
                    </td>
                    <td>
                      <code>
                        {r.method} {r.path}
                      </code>
                    </td>
                    <td>{r.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      </section>
    </Page>
  );
}
