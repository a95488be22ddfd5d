/**
 * One subscription: pause/resume (PATCH enabled), rotate the secret (the new one shown once, the old
 * one's grace end shown), send a test event, the delivery log with every attempt, redelivery, and a
 * receiver snippet with this subscription's values. The log refreshes while deliveries are pending.
 */
import { useEffect, useState } from 'preact/hooks';
import type { WebhookDelivery, WebhookSubscription } from '../../services/http/types.generated.js';
import { CopyButton, ErrorNote, Link, Loading, Page, Stats } from '../components/ui.js';
import { ApiFailure, get, getPage, send } from '../lib/api.js';
import { formatTime } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { receiverSnippet } from '../lib/receiver-snippet.js';
import { navigate } from '../lib/router.js';
import { rememberSecret, shownSecret } from '../lib/secrets.js';
import { type Loaded, useApi, useInterval } from '../lib/use-api.js';
import { subscriptionState } from './webhooks.js';

export function WebhookPage(props: { id: string }) {
  const subscription = useApi(() => get<WebhookSubscription>(`/webhooks/${props.id}`), [props.id]);
  const deliveries = useApi(() => getPage<WebhookDelivery>(`/webhooks/${props.id}/deliveries`, { limit: 25 }), [props.id]);
  const [actionError, setActionError] = useState<ApiFailure | null>(null);
  const [notice, setNotice] = useState('');
  const [busy, setBusy] = useState(false);
  const secret = shownSecret(props.id);
  const pending = deliveries.data?.data.some((d) => d.status === 'pending') ?? false;
  useInterval(() => void deliveries.reload(), 1500, pending);
  useEffect(() => {
    if (subscription.data && deliveries.data) markReady();
  }, [subscription.data, deliveries.data]);

  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    try {
      setNotice(await work());
      setActionError(null);
    } catch (failure) {
      setActionError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'NETWORK', String(failure)));
    } finally {
      setBusy(false);
    }
  };

  const s = subscription.data;
  if (!s) {
    return (
      <Page title="Webhook">
        <ErrorNote error={subscription.error} what="Subscription" />
        {!subscription.error && <Loading what="the subscription" />}
      </Page>
    );
  }

  const toggle = () =>
    act(async () => {
      await send('PATCH', `/webhooks/${s.id}`, { enabled: !s.enabled });
      await subscription.reload();
      return s.enabled ? 'Paused: events are kept and go out when you resume.' : 'Resumed: waiting deliveries go out now.';
    });
  const rotate = () =>
    act(async () => {
      const rotated = await send<WebhookSubscription>('POST', `/webhooks/${s.id}/rotate-secret`);
      if (rotated.secret) rememberSecret(s.id, rotated.secret);
      await subscription.reload();
      return `New secret below (shown once). The previous secret keeps signing alongside until ${formatTime(rotated.previous_secret_expires_at)}.`;
    });
  const test = () =>
    act(async () => {
      const queued = await send<WebhookDelivery>('POST', `/webhooks/${s.id}/test`);
      await deliveries.reload();
      return `Test event queued (delivery ${queued.id}).`;
    });
  const remove = () => {
    if (!window.confirm(`Delete the subscription to ${s.url} and its pending deliveries?`)) return;
    void act(async () => {
      await send('DELETE', `/webhooks/${s.id}`);
      navigate('/app/webhooks');
      return 'Deleted.';
    });
  };

  return (
    <Page title={`Webhook ${s.id}`}>
      <p>
        <Link href="/app/webhooks">← All webhooks</Link>
      </p>
      <Stats
        items={[
          ['URL', <code key="url">{s.url}</code>],
          ['Events', s.events.join(', ')],
          ['State', subscriptionState(s)],
          ['Secret', <code key="hint">{s.secret_hint}</code>],
          [
            'Previous secret valid until',
            s.previous_secret_expires_at ? formatTime(s.previous_secret_expires_at) : '— (no rotation in grace)',
          ],
          ['Filters', Object.keys(s.filters).length ? JSON.stringify(s.filters) : 'none'],
        ]}
      />
      <div class="row">
        <button type="button" disabled={busy} onClick={toggle}>
          {s.enabled ? 'Pause' : 'Resume'}
        </button>
        <button type="button" disabled={busy} onClick={test}>
          Send test event
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={rotate}>
          Rotate secret
        </button>
        <button type="button" class="danger" disabled={busy} onClick={remove}>
          Delete
        </button>
      </div>
      <p role="status" aria-live="polite" class="notice">
        {notice}
      </p>
      <ErrorNote error={actionError} />
      {secret && (
        <section class="panel" aria-labelledby="secret-heading">
          <h2 id="secret-heading">Signing secret (shown once)</h2>
          <p>
            <label for="secret-value">Secret</label>
            <input id="secret-value" class="mono wide" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
          </p>
          <CopyButton text={secret} label="Copy secret" />
        </section>
      )}
      <Deliveries subscriptionId={s.id} loaded={deliveries} onRedelivered={setNotice} onError={setActionError} />
      <section class="panel" aria-labelledby="snippet-heading">
        <h2 id="snippet-heading">Receiver</h2>
        <p class="hint">
          Verifies the signature (<code>X-Service-Signature</code>, HMAC-SHA256 over <code>timestamp.body</code>, 300 s tolerance, any entry
          may match during a rotation) and deduplicates on the event id.
        </p>
        <label for="receiver-code">Receiver code (Node 20+)</label>
        <textarea id="receiver-code" class="code wide mono" readOnly rows={16} value={receiverSnippet({ url: s.url, secret })} />
        <CopyButton text={receiverSnippet({ url: s.url, secret })} label="Copy receiver code" />
      </section>
    </Page>
  );
}

function Deliveries(props: {
  subscriptionId: string;
  loaded: Loaded<{ data: WebhookDelivery[] }>;
  onRedelivered: (message: string) => void;
  onError: (failure: ApiFailure) => void;
}) {
  const { data, error, reload } = props.loaded;
  const redeliver = async (delivery: WebhookDelivery) => {
    try {
      await send('POST', `/webhooks/${props.subscriptionId}/deliveries/${delivery.id}/redeliver`);
      props.onRedelivered(`Delivery ${delivery.id} queued again.`);
      await reload();
    } catch (failure) {
      props.onError(failure instanceof ApiFailure ? failure : new ApiFailure(0, 'NETWORK', String(failure)));
    }
  };
  return (
    <section class="panel" aria-labelledby="deliveries-heading">
      <div class="row spread">
        <h2 id="deliveries-heading">Deliveries</h2>
        <button type="button" class="secondary" onClick={() => void reload()}>
          Refresh
        </button>
      </div>
      <ErrorNote error={error} what="Deliveries" />
      {data &&
        (data.data.length === 0 ? (
          <p class="muted">No deliveries yet. Send a test event to try the receiver.</p>
        ) : (
          <table class="deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last response</th>
                <th scope="col">Created</th>
                <th scope="col">Attempt log</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((d) => (
                <tr key={d.id} data-delivery={d.id} data-status={d.status}>
                  <td>
                    <code>{d.event}</code>
                    <div class="hint mono">{d.id}</div>
                  </td>
                  <td>
                    <span class={`status ${d.status}`}>{d.status}</span>
                    {d.next_attempt_at && <div class="hint">next {formatTime(d.next_attempt_at)}</div>}
                  </td>
                  <td class="num">{d.attempts}</td>
                  <td>{d.last_status_code ?? d.last_error ?? '—'}</td>
                  <td>{formatTime(d.created_at)}</td>
                  <td>
                    {d.attempt_log.length === 0 ? (
                      '—'
                    ) : (
                      <ol class="attempts">
                        {d.attempt_log.map((a) => (
                          <li key={a.attempt}>
                            #{a.attempt} {formatTime(a.attempted_at)}: {a.status_code ?? a.error} ({a.latency_ms} ms)
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                  <td>
                    <button type="button" class="secondary" onClick={() => void redeliver(d)} aria-label={`Redeliver ${d.event} ${d.id}`}>
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
    </section>
  );
}
