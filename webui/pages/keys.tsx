/**
 * The account and its keys: who is signed in and what the tier unlocks, then every key by its safe
 * prefix (tier, created, last used, status) with create, rotate and revoke through /v1/keys. A new
 * key is shown once, here, like the API shows it; a rotation shows until when the old key works.
 * Rotating the key this browser signs in with moves the session to the new key; revoking it signs
 * the browser out.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApiKey, NewApiKey, RotatedApiKey } from '../../services/http/types.generated.js';
import { CopyButton, ErrorNote, Link, Loading, Page, Stats } from '../components/ui.js';
import { ApiFailure, getPage, send } from '../lib/api.js';
import { formatInteger, formatTime } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { useSession } from '../lib/session.js';
import { useApi } from '../lib/use-api.js';

const asFailure = (error: unknown) => (error instanceof ApiFailure ? error : new ApiFailure(0, 'NETWORK', String(error)));

/** Grace periods offered for the old key on rotation (the API allows 0 s to 7 days). */
const GRACE_CHOICES: Array<[number, string]> = [
  [0, 'stops at once'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [7 * 86_400, '7 days'],
];

/** The key the API just showed, once: a new one, or the replacement from a rotation. */
interface ShownKey {
  key: NewApiKey;
  previous?: ApiKey;
  /** Whether this browser's session moved to it. */
  sessionMoved?: boolean;
}

export function KeysPage() {
  const { session, access, signIn } = useSession();
  const [showRevoked, setShowRevoked] = useState(false);
  const [extra, setExtra] = useState<ApiKey[]>([]);
  const keys = useApi(() => getPage<ApiKey>('/keys', { status: showRevoked ? 'all' : 'live', limit: 50 }), [showRevoked]);
  const [shown, setShown] = useState<ShownKey | null>(null);
  const [grace, setGrace] = useState(3600);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState('');
  const [actionError, setActionError] = useState<ApiFailure | null>(null);
  useEffect(() => {
    if (keys.data || keys.error) markReady();
  }, [keys.data, keys.error]);
  // Pages after the first, fetched with "More keys"; a reload starts from the first page again.
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  useEffect(() => {
    setExtra([]);
    setNextCursor(keys.data?.pagination.next_cursor ?? null);
  }, [keys.data]);
  if (!session || !access) return null;

  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    try {
      setNotice(await work());
      setActionError(null);
    } catch (error) {
      setActionError(asFailure(error));
    } finally {
      setBusy(false);
    }
  };

  const create = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const label = String(new FormData(form).get('label') ?? '').trim();
    void act(async () => {
      const created = await send<NewApiKey>('POST', '/keys', label ? { label } : {});
      setShown({ key: created });
      form.reset();
      await keys.reload();
      return `Key ${created.prefix} created.`;
    });
  };

  const rotate = (key: ApiKey) =>
    act(async () => {
      const rotated = await send<RotatedApiKey>('POST', `/keys/${key.id}/rotate`, { expire_previous_in_seconds: grace });
      const { previous, ...replacement } = rotated;
      // The session holds the old key: move it to the new one before the old one stops.
      if (key.current) await signIn(rotated.api_key);
      setShown({ key: replacement, previous, sessionMoved: key.current });
      await keys.reload();
      return `Key ${key.prefix} rotated to ${rotated.prefix}.`;
    });

  const revoke = (key: ApiKey) => {
    const warning = key.current ? ' This browser is signed in with it and will be signed out.' : '';
    if (!window.confirm(`Revoke key ${key.prefix}? It stops working at once.${warning}`)) return;
    void act(async () => {
      await send<ApiKey>('POST', `/keys/${key.id}/revoke`);
      if (key.current) {
        // The cookie's key is dead now; the shell clears such a cookie and shows the sign-in page.
        window.location.assign('/app');
        return 'Revoked; signing out.';
      }
      await keys.reload();
      return `Key ${key.prefix} revoked.`;
    });
  };

  const more = async () => {
    if (!nextCursor) return;
    try {
      const next = await getPage<ApiKey>('/keys', { status: showRevoked ? 'all' : 'live', limit: 50, cursor: nextCursor });
      setExtra((rows) => [...rows, ...next.data]);
      setNextCursor(next.pagination.next_cursor ?? null);
    } catch (error) {
      setActionError(asFailure(error));
    }
  };

  const rows = [...(keys.data?.data ?? []), ...extra];

  return (
    <Page title="Account and keys">
      <Stats
        items={[
          ['Account', session.name],
          ['Email', session.email ?? '—'],
          ['Kind', session.kind],
          ['Tier', session.tier === 'sandbox' ? 'Sandbox' : `Tier ${session.tier}`],
          ['Key in use', <code key="hint">{session.key_hint}</code>],
          ['Signed in by', session.authenticated_by === 'cookie' ? 'session cookie (HttpOnly)' : 'bearer header'],
        ]}
      />

      <section class="panel" aria-labelledby="keys-heading">
        <div class="row spread">
          <h2 id="keys-heading">API keys</h2>
          <div class="check">
            <input id="show-revoked" type="checkbox" checked={showRevoked} onChange={(e) => setShowRevoked(e.currentTarget.checked)} />
            <label for="show-revoked">Show revoked keys</label>
          </div>
        </div>
        <p class="hint">
          Keys of one account share its tier, quota and rate limit. Only a hash of each key is stored: a lost key is replaced (rotate), not
          shown again.
        </p>
        {shown && <ShownKeyPanel shown={shown} />}
        <form class="row" onSubmit={create}>
          <label for="key-label">Label for a new key</label>
          <input id="key-label" name="label" maxLength={100} placeholder="e.g. production worker" />
          <button type="submit" disabled={busy}>
            Create key
          </button>
        </form>
        <div class="row">
          <label for="rotation-grace">On rotation, the old key</label>
          <select id="rotation-grace" value={grace} onChange={(e) => setGrace(Number(e.currentTarget.value))}>
            {GRACE_CHOICES.map(([seconds, label]) => (
              <option key={seconds} value={seconds}>
                {seconds === 0 ? label : `keeps working for ${label}`}
              </option>
            ))}
          </select>
        </div>
        <p role="status" aria-live="polite" class="notice">
          {notice}
        </p>
        <ErrorNote error={actionError} />
        <ErrorNote error={keys.error} what="Keys" />
        {!keys.data && !keys.error && <Loading what="keys" />}
        {keys.data && (
          <table data-testid="keys">
            <caption>
              {showRevoked ? 'All keys, newest first' : 'Live keys (active, or rotated and in their grace period), newest first'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Label</th>
                <th scope="col">Tier</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((key) => (
                <tr key={key.id} data-key={key.id} data-status={key.status}>
                  <td>
                    <code>{key.prefix}</code>
                    {key.current && <span class="badge key-current">this browser</span>}
                  </td>
                  <td>{key.label ?? '—'}</td>
                  <td>{key.tier === 'sandbox' ? 'Sandbox' : `Tier ${key.tier}`}</td>
                  <td>{formatTime(key.created_at)}</td>
                  <td>{key.last_used_at ? formatTime(key.last_used_at) : 'never'}</td>
                  <td>{statusText(key)}</td>
                  <td>
                    {key.status === 'active' && (
                      <span class="row">
                        <button
                          type="button"
                          class="secondary"
                          disabled={busy}
                          aria-label={`Rotate key ${key.prefix}`}
                          onClick={() => rotate(key)}
                        >
                          Rotate
                        </button>
                        <button
                          type="button"
                          class="danger"
                          disabled={busy}
                          aria-label={`Revoke key ${key.prefix}`}
                          onClick={() => revoke(key)}
                        >
                          Revoke
                        </button>
                      </span>
                    )}
                    {key.status === 'expiring' && (
                      <button
                        type="button"
                        class="danger"
                        disabled={busy}
                        aria-label={`Revoke now: key ${key.prefix}`}
                        onClick={() => revoke(key)}
                      >
                        Revoke now
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {nextCursor && (
          <button type="button" class="secondary" onClick={more}>
            More keys
          </button>
        )}
      </section>

      <section class="panel" aria-labelledby="access-heading">
        <h2 id="access-heading">What this key can call</h2>
        <p>
          {formatInteger(access.allowed_endpoints)} of {formatInteger(access.endpoints.length)} endpoints. {access.rule}
        </p>
        {access.lacking.length > 0 && (
          <table>
            <caption>Endpoints this key cannot call yet</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Needs</th>
                <th scope="col">Status if called</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {access.lacking.map((e) => (
                <tr key={`${e.method} ${e.path}`}>
                  <td>
                    <code>
                      {e.method} {e.path}
                    </code>
                  </td>
                  <td>{e.requires}</td>
                  <td>{e.status_if_called}</td>
                  <td>{e.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="hint">
          Tier 2 comes with {formatInteger(access.thresholds.tier2_tokens ?? 0)} platform tokens or any credits.{' '}
          <Link href="/app/usage">Usage and quota</Link>.
        </p>
      </section>
    </Page>
  );
}

function statusText(key: ApiKey): string {
  if (key.status === 'active') return 'active';
  if (key.status === 'expiring') return `rotated: works until ${formatTime(key.expires_at)}`;
  return `revoked ${formatTime(key.expires_at)}`;
}

function ShownKeyPanel(props: { shown: ShownKey }) {
  const { key, previous, sessionMoved } = props.shown;
  return (
    <section class="panel" aria-labelledby="shown-key-heading">
      <h3 id="shown-key-heading">{previous ? 'Replacement key' : 'New key'}: store it now, it is shown only once</h3>
      <p>
        <label for="shown-key">New API key</label>
        <input id="shown-key" class="mono wide" readOnly value={key.api_key} onFocus={(e) => e.currentTarget.select()} />
      </p>
      <p class="row">
        <CopyButton text={key.api_key} label="Copy new key" />
      </p>
      {previous && (
        <p data-testid="grace">
          The previous key <code>{previous.prefix}</code>{' '}
          {previous.status === 'expiring'
            ? `keeps working until ${formatTime(previous.expires_at)} (grace period), then stops.`
            : 'stopped working at once.'}
        </p>
      )}
      {sessionMoved && <p>This browser now signs in with the new key.</p>}
    </section>
  );
}
