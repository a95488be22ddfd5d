/** The shell: skip link, navigation, the page for the current URL, and the footer. */
import type { JSX } from 'preact';
import { useEffect } from 'preact/hooks';
import { Link, Loading } from './components/ui.js';
import { navigate, useLocation } from './lib/router.js';
import { SessionProvider, useSession } from './lib/session.js';
import { AccessPage } from './pages/access.js';
import { KeysPage } from './pages/keys.js';
import { MarketPage } from './pages/market.js';
import { MarketsPage } from './pages/markets.js';
import { SignInPage } from './pages/sign-in.js';
import { TraderPage } from './pages/trader.js';
import { TradersPage } from './pages/traders.js';
import { UsagePage } from './pages/usage.js';
import { WebhookPage } from './pages/webhook.js';
import { WebhooksPage } from './pages/webhooks.js';

const NAV = [
  ['/app/markets', 'Markets'],
  ['/app/traders', 'Traders'],
  ['/app/usage', 'Usage'],
  ['/app/access', 'Tiers'],
  ['/app/webhooks', 'Webhooks'],
  ['/app/keys', 'Account and keys'],
] as const;

export function App() {
  return (
    <SessionProvider>
      <Shell />
    </SessionProvider>
  );
}

function Shell() {
  const { status, session, signOut } = useSession();
  const { path } = useLocation();
  const signedIn = status === 'signed-in';
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <Link href="/app" class="brand">
          tapeline
        </Link>
        {signedIn && (
          <nav aria-label="Main">
            <ul>
              {NAV.map(([href, label]) => (
                <li key={href}>
                  <Link href={href} aria-current={path.startsWith(href) ? 'page' : undefined}>
                    {label}
                  </Link>
                </li>
              ))}
              <li>
                <a href="/api/docs">API docs</a>
              </li>
            </ul>
          </nav>
        )}
        {signedIn && session && (
          <div class="who">
            <span>
              {session.name} · {session.tier === 'sandbox' ? 'Sandbox' : `Tier ${session.tier}`}
            </span>
            <button
              type="button"
              class="secondary"
              onClick={async () => {
                await signOut();
                navigate('/app');
              }}
            >
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main">{status === 'loading' ? <Loading what="your session" /> : signedIn ? <Route path={path} /> : <SignInPage />}</main>
      <footer>
        Data from Polymarket via tapeline's <code>/v1</code> API (demo data is marked <em>source: simulator</em>). Charts by{' '}
        <a href="https://www.tradingview.com/" rel="noopener noreferrer">
          TradingView Lightweight Charts
        </a>
        .
      </footer>
    </>
  );
}

/** Pages by URL; the first pattern that matches renders (keyed, so a new id is a fresh page). */
const ROUTES: Array<[RegExp, (match: string[]) => JSX.Element]> = [
  [/^\/app\/markets$/, () => <MarketsPage />],
  [/^\/app\/markets\/([^/]+)$/, ([, id]) => <MarketPage key={id} id={decodeURIComponent(id!)} />],
  [/^\/app\/traders$/, () => <TradersPage />],
  [/^\/app\/traders\/(0x[0-9a-fA-F]{40})$/, ([, wallet]) => <TraderPage key={wallet} wallet={wallet!.toLowerCase()} />],
  [/^\/app\/usage$/, () => <UsagePage />],
  [/^\/app\/access$/, () => <AccessPage />],
  [/^\/app\/webhooks$/, () => <WebhooksPage />],
  [/^\/app\/webhooks\/(\d{1,18})$/, ([, id]) => <WebhookPage key={id} id={id!} />],
  [/^\/app\/keys$/, () => <KeysPage />],
];

function Route(props: { path: string }) {
  const path = props.path;
  useEffect(() => {
    if (path === '/app') navigate('/app/markets', { replace: true });
  }, [path]);
  if (path === '/app') return null;
  for (const [pattern, page] of ROUTES) {
    const match = pattern.exec(path);
    if (match) return page([...match]);
  }
  return (
    <>
      <h1>Not found</h1>
      <p>
        No page at <code>{path}</code>. <Link href="/app/markets">Markets</Link>
      </p>
    </>
  );
}
