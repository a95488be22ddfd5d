/** Webhook subscriptions: the list (GET /v1/webhooks) and the form that creates one (POST /v1/webhooks). */
import { useEffect, useState } from 'preact/hooks';
import type { WebhookSubscription } from '../../services/http/types.generated.js';
import { ErrorNote, Link, Loading, Page } from '../components/ui.js';
import { ApiFailure, get, getPage, send } from '../lib/api.js';
import { formatTime } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { navigate } from '../lib/router.js';
import { rememberSecret } from '../lib/secrets.js';
import { useApi } from '../lib/use-api.js';

interface EventType {
  event: string;
  description: string;
  emitted: boolean;
}

export function subscriptionState(s: WebhookSubscription): string {
  if (s.enabled) return 'active';
  return s.disabled_reason ? `disabled: ${s.disabled_reason}` : 'paused';
}

export function WebhooksPage() {
  const list = useApi(() => getPage<WebhookSubscription>('/webhooks', { limit: 100 }), []);
  const types = useApi(() => get<EventType[]>('/webhooks/event-types'), []);
  useEffect(() => {
    if (list.data && types.data) markReady();
  }, [list.data, types.data]);

  return (
    <Page title="Webhooks">
      <p class="lede">
        Signed HTTP deliveries of trades, price moves and resolutions. See <a href="/api/docs">the API document</a> for payloads.
      </p>
      <ErrorNote error={list.error} what="Subscriptions" />
      {list.loading && !list.data && <Loading what="subscriptions" />}
      {list.data &&
        (list.data.data.length === 0 ? (
          <p class="muted">No subscriptions yet.</p>
        ) : (
          <table>
            <caption>Your subscriptions</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Link href={`/app/webhooks/${s.id}`}>{s.url}</Link>
                  </td>
                  <td>{s.events.join(', ')}</td>
                  <td>{subscriptionState(s)}</td>
                  <td>{formatTime(s.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      <ErrorNote error={types.error} what="Event types" />
      {types.data && <CreateSubscription types={types.data} />}
    </Page>
  );
}

function CreateSubscription(props: { types: EventType[] }) {
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const events = form.getAll('events').map(String);
    if (events.length === 0) {
      setError(new ApiFailure(400, 'BAD_REQUEST', 'events: pick at least one event'));
      return;
    }
    const filters: Record<string, unknown> = {};
    const minSize = String(form.get('min_size_usdc') ?? '').trim();
    if (minSize) filters.min_size_usdc = Number(minSize);
    const markets = String(form.get('market_ids') ?? '')
      .split(/[\s,]+/)
      .filter(Boolean);
    if (markets.length > 0) filters.market_ids = markets;
    setBusy(true);
    try {
      const created = await send<WebhookSubscription>('POST', '/webhooks', {
        url: String(form.get('url') ?? '').trim(),
        events,
        ...(Object.keys(filters).length > 0 ? { filters } : {}),
      });
      if (created.secret) rememberSecret(created.id, created.secret);
      navigate(`/app/webhooks/${created.id}`);
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'NETWORK', String(failure)));
      setBusy(false);
    }
  };

  return (
    <section class="panel" aria-labelledby="create-heading">
      <h2 id="create-heading">New subscription</h2>
      <form onSubmit={submit}>
        <label for="hook-url">Receiver URL</label>
        <input
          id="hook-url"
          name="url"
          type="url"
          required
          maxLength={2048}
          class="wide"
          placeholder="https://example.com/hooks/tapeline"
          aria-describedby="ssrf-rule"
        />
        <p id="ssrf-rule" class="hint">
          http or https, resolving to public addresses only: private (10/8, 172.16/12, 192.168/16), loopback, link-local (including the
          169.254.169.254 metadata address), carrier-grade NAT, multicast and reserved ranges are refused, when you save and again at every
          connection (so a name that later resolves to such an address is refused too). Operators can exempt hosts for local testing (
          <code>WEBHOOK_ALLOWED_HOSTS</code>).
        </p>
        <fieldset>
          <legend>Events</legend>
          {props.types.map((t) => (
            <div class="check" key={t.event}>
              <input type="checkbox" id={`event-${t.event}`} name="events" value={t.event} aria-describedby={`event-${t.event}-about`} />
              <label for={`event-${t.event}`}>
                <code>{t.event}</code>
              </label>
              <span id={`event-${t.event}-about`} class="hint">
                {t.description}
                {t.emitted ? '' : ' Not emitted yet: subscribable now, delivered once its producer lands.'}
              </span>
            </div>
          ))}
        </fieldset>
        <details>
          <summary>Filters (optional)</summary>
          <label for="hook-min-size">Minimum trade size, USDC (trade.executed)</label>
          <input id="hook-min-size" name="min_size_usdc" type="number" min="0" step="any" inputMode="decimal" />
          <label for="hook-markets">Only these markets (condition ids, comma or space separated)</label>
          <textarea id="hook-markets" name="market_ids" rows={2} class="wide mono" />
        </details>
        <ErrorNote error={error} what="Creating the subscription" />
        <button type="submit" disabled={busy}>
          Create subscription
        </button>
      </form>
    </section>
  );
}
