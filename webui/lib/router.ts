/** History-API routing under /app: links navigate without a reload, Back/Forward work, and each page gets its own URL. */
import { useEffect, useState } from 'preact/hooks';
import { resetReady } from './ready.js';

const CHANGE = 'tapeline:navigate';

let inAppNavigations = 0;

/** Whether the current page was reached by in-app navigation (not a fresh load, where focus starts at the top). */
export const navigatedInApp = () => inAppNavigations > 0;

// Readiness is per page: cleared before the next page renders (and marks itself ready).
window.addEventListener('popstate', () => {
  inAppNavigations++;
  resetReady();
});

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  inAppNavigations++;
  resetReady();
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  window.dispatchEvent(new Event(CHANGE));
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const [href, setHref] = useState(location.pathname + location.search);
  useEffect(() => {
    const update = () => setHref(location.pathname + location.search);
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  const url = new URL(href, location.origin);
  return { path: url.pathname.replace(/\/+$/, '') || '/', query: url.searchParams };
}

/** Follows an in-app link without a reload (a modified click still opens a new tab as usual). */
export function onLinkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = anchor.getAttribute('href');
  if (!href?.startsWith('/app')) return;
  event.preventDefault();
  navigate(href);
}
