/**
 * Tiers and access: what each tier opens and what makes a key reach it (the thresholds as this
 * service is configured), the signed-in key's tier and balances, the ways to reach Tier 2, and every
 * endpoint the key cannot call yet with the API's reason. All from GET /v1/pricing/access, read afresh.
 */
import { useEffect } from 'preact/hooks';
import type { AccessReport, EndpointAccess } from '../../services/http/types.generated.js';
import { ErrorNote, Link, Loading, Page, Stats } from '../components/ui.js';
import { get } from '../lib/api.js';
import { formatInteger } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { useApi } from '../lib/use-api.js';

const TIER_LABEL: Record<AccessReport['tier'], string> = { sandbox: 'Sandbox', '1': 'Tier 1', '2': 'Tier 2', '3': 'Tier 3' };

export function AccessPage() {
  const access = useApi(() => get<AccessReport>('/pricing/access'), []);
  useEffect(() => {
    if (access.data || access.error) markReady();
  }, [access.data, access.error]);
  const a = access.data;
  return (
    <Page title="Tiers and access">
      <ErrorNote error={access.error} what="Access" />
      {!a && !access.error && <Loading what="your access" />}
      {a && (
        <>
          <Stats
            items={[
              ['Your tier', TIER_LABEL[a.tier]],
              ['Key kind', a.kind],
              ['Platform tokens', formatInteger(a.token_balance)],
              ['Credits', formatInteger(a.credits)],
              ['Endpoints you can call', `${formatInteger(a.allowed_endpoints)} of ${formatInteger(a.endpoints.length)}`],
            ]}
          />
          <p class="hint">{a.rule}</p>
          <Tiers report={a} />
          <ReachTier2 report={a} />
          <Lacking entries={a.lacking} />
        </>
      )}
    </Page>
  );
}

/** Endpoints that need exactly `requires`. */
const countOf = (report: AccessReport, requires: EndpointAccess['requires']) =>
  report.endpoints.filter((e) => e.requires === requires).length;

function Tiers(props: { report: AccessReport }) {
  const { report } = props;
  const t = report.thresholds;
  const rows: Array<[string, string, string, number]> = [
    [
      'Sandbox',
      'An agent key from POST /v1/agents/register',
      'Paper trading, briefings and signals (agent keys only)',
      countOf(report, 'sandbox'),
    ],
    [
      'Tier 1',
      'Any key',
      'Markets, candles, live order books, prices, webhooks, fees and your account',
      countOf(report, 'tier1') + countOf(report, 'any'),
    ],
    [
      'Tier 2',
      `${formatInteger(t.tier2_tokens)} platform tokens, or credits: each Tier 2 call draws ${formatInteger(t.tier2_credits)}`,
      'Trades, traders, positions, leaderboards, holders, open interest, book history, copy trading, backtests, strategies',
      countOf(report, 'tier2'),
    ],
    ['Tier 3', `${formatInteger(t.tier3_tokens)} platform tokens`, 'The largest daily quota and rate', countOf(report, 'tier3')],
  ];
  return (
    <section class="panel" aria-labelledby="tiers-heading">
      <h2 id="tiers-heading">Tiers</h2>
      <p>Tiers are cumulative: each opens what the ones below it open, with a larger daily quota and rate.</p>
      <table data-testid="tiers">
        <caption class="sr-only">Tiers, what reaches each and what each adds</caption>
        <thead>
          <tr>
            <th scope="col">Tier</th>
            <th scope="col">Reached with</th>
            <th scope="col">Adds</th>
            <th scope="col" class="num">
              Endpoints
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([tier, reach, adds, endpoints]) => (
            <tr key={tier} aria-current={TIER_LABEL[report.tier] === tier ? 'true' : undefined}>
              <th scope="row">
                {tier}
                {TIER_LABEL[report.tier] === tier ? ' (yours)' : ''}
              </th>
              <td>{reach}</td>
              <td>{adds}</td>
              <td class="num">{formatInteger(endpoints)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ReachTier2(props: { report: AccessReport }) {
  const { report } = props;
  const t = report.thresholds;
  const reached = report.tier === '2' || report.tier === '3';
  return (
    <section class="panel" aria-labelledby="tier2-heading">
      <h2 id="tier2-heading">How to reach Tier 2</h2>
      {reached && <p class="note">This key is {TIER_LABEL[report.tier]} already.</p>}
      <ol>
        <li>
          <strong>Credits.</strong> The service's operator adds them to your key:{' '}
          <code>npm run admin -- credits add &lt;your key&gt; 1000</code> (on the demo, with <code>DATA_DIR=./data-demo</code> in front).
          Each call only credits unlock draws {formatInteger(t.tier2_credits)} credit(s), so credits pay for exactly the calls they open.
          You have {formatInteger(report.credits)}.
        </li>
        <li>
          <strong>Platform tokens.</strong> Link a wallet holding at least {formatInteger(t.tier2_tokens)} tokens: sign the{' '}
          <code>link_message</code> of <code>GET /v1/account/wallet</code> with that wallet (EIP-191 <code>personal_sign</code>) and send it
          with <code>PUT /v1/account/wallet</code>. The balance is read from the chain and counts within about a minute. You hold{' '}
          {formatInteger(report.token_balance)}.
        </li>
        <li>
          <strong>A Tier 2 key from the operator.</strong> <code>npm run admin -- keys create --tier 2 --name "my bot"</code> (on the demo,
          with <code>DATA_DIR=./data-demo</code> in front) prints a new key; sign in with it.
        </li>
      </ol>
      <p class="hint">
        A call your tier does not open answers <code>402 PAYMENT_REQUIRED</code> with what would unlock it;{' '}
        <Link href="/app/usage">Usage</Link> shows the calls refused so far.
      </p>
    </section>
  );
}

function Lacking(props: { entries: EndpointAccess[] }) {
  return (
    <section class="panel" aria-labelledby="lacking-heading">
      <h2 id="lacking-heading">What this key cannot call yet</h2>
      {props.entries.length === 0 ? (
        <p class="muted">Nothing: this key can call every endpoint.</p>
      ) : (
        <table data-testid="lacking">
          <caption class="sr-only">Endpoints this key cannot call, with the answer it would get and why</caption>
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">Needs</th>
              <th scope="col" class="num">
                Answer
              </th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {props.entries.map((e) => (
              <tr key={`${e.method} ${e.path}`}>
                <td class="mono">
                  {e.method} {e.path}
                </td>
                <td>{e.requires === 'tier2' ? 'Tier 2' : e.requires === 'tier3' ? 'Tier 3' : e.requires}</td>
                <td class="num">{e.status_if_called}</td>
                <td>{e.reason ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
