/**
 * Signed-out home: create a developer account (POST /v1/developers/register; the key is shown once,
 * here) or sign in with an existing key (POST /v1/session puts it in the HttpOnly session cookie).
 */
import { useEffect, useState } from 'preact/hooks';
import type { DeveloperRegistration } from '../../services/http/types.generated.js';
import { CopyButton, ErrorNote, Page } from '../components/ui.js';
import { ApiFailure, send } from '../lib/api.js';
import { markReady } from '../lib/ready.js';
import { navigate } from '../lib/router.js';
import { useSession } from '../lib/session.js';

const asFailure = (error: unknown) => (error instanceof ApiFailure ? error : new ApiFailure(0, 'NETWORK', String(error)));

export function SignInPage() {
  const { signIn } = useSession();
  const [registration, setRegistration] = useState<DeveloperRegistration | null>(null);
  const [signUpError, setSignUpError] = useState<ApiFailure | null>(null);
  const [signInError, setSignInError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(markReady, []);

  const signUp = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    try {
      setRegistration(
        await send<DeveloperRegistration>('POST', '/developers/register', { name: form.get('name'), email: form.get('email') }),
      );
      setSignUpError(null);
    } catch (error) {
      setSignUpError(asFailure(error));
    } finally {
      setBusy(false);
    }
  };

  const enter = async (apiKey: string, onError: (failure: ApiFailure) => void) => {
    setBusy(true);
    try {
      // The destination first: signing in re-renders the app at the current URL, and /app would redirect.
      navigate('/app/keys', { replace: true });
      await signIn(apiKey);
    } catch (error) {
      navigate('/app', { replace: true });
      onError(asFailure(error));
      setBusy(false);
    }
  };

  if (registration) {
    return (
      <Page title="Your API key">
        <section class="panel" aria-labelledby="key-once">
          <h2 id="key-once">Store this key now: it is shown only once</h2>
          <p>
            Account <strong>{registration.name}</strong> ({registration.email}) is on Tier {registration.tier}. Only a hash of the key is
            kept, so it cannot be shown again; a lost key is replaced, not recovered.
          </p>
          <p>
            <label for="new-key">API key</label>
            <input id="new-key" class="mono wide" readOnly value={registration.api_key} onFocus={(e) => e.currentTarget.select()} />
          </p>
          <p class="row">
            <CopyButton text={registration.api_key} label="Copy key" />
          </p>
          <p>
            Use it as <code>Authorization: Bearer &lt;key&gt;</code> on every <code>/v1</code> call. Continuing signs this browser in with
            it (an HttpOnly cookie: page scripts cannot read it).
          </p>
          <ErrorNote error={signInError} what="Signing in" />
          <button type="button" disabled={busy} onClick={() => enter(registration.api_key, setSignInError)}>
            Continue to the dashboard
          </button>
        </section>
      </Page>
    );
  }

  return (
    <Page title="tapeline for developers">
      <p class="lede">Polymarket data over one REST API: markets, candles, order books, trades, traders and signed webhooks.</p>
      <div class="columns">
        <section class="panel" aria-labelledby="signup-heading">
          <h2 id="signup-heading">Create a developer account</h2>
          <p class="muted">Free and instant. The key is shown once, on the next screen; no mail is sent.</p>
          <form onSubmit={signUp}>
            <label for="signup-name">Name or project</label>
            <input id="signup-name" name="name" required maxLength={100} autoComplete="name" />
            <label for="signup-email">Email</label>
            <input
              id="signup-email"
              name="email"
              type="email"
              required
              maxLength={254}
              autoComplete="email"
              aria-describedby="email-hint"
            />
            <p id="email-hint" class="hint">
              A contact address; it is stored, not verified.
            </p>
            <ErrorNote error={signUpError} what="Sign-up" />
            <button type="submit" disabled={busy}>
              Create account and key
            </button>
          </form>
        </section>
        <section class="panel" aria-labelledby="signin-heading">
          <h2 id="signin-heading">Sign in with an API key</h2>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const key = String(new FormData(event.currentTarget as HTMLFormElement).get('api_key') ?? '').trim();
              void enter(key, setSignInError);
            }}
          >
            <label for="signin-key">API key</label>
            <input id="signin-key" name="api_key" type="password" required autoComplete="off" class="mono" placeholder="aif_…" />
            <ErrorNote error={signInError} what="Sign-in" />
            <button type="submit" disabled={busy}>
              Sign in
            </button>
          </form>
          <p class="hint">
            Agents register without a browser: <code>POST /v1/agents/register</code>. The API document is at{' '}
            <a href="/api/docs">/api/docs</a>.
          </p>
        </section>
      </div>
    </Page>
  );
}
