/** The account and its keys: who is signed in, the key in use, the tier and what it unlocks. */
import { useEffect } from 'preact/hooks';
import { Link, Page, Stats } from '../components/ui.js';
import { formatInteger } from '../lib/format.js';
import { markReady } from '../lib/ready.js';
import { useSession } from '../lib/session.js';

export function KeysPage() {
  const { session, access } = useSession();
  useEffect(markReady, []);
  if (!session || !access) return null;
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
