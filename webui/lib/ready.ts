/**
 * The readiness marker: a page calls `markReady()` once its first content (with data) is on screen
 * and usable. It sets `data-ready` on <html> and a `tapeline:interactive` performance mark, which the
 * browser tests wait for and bench/webui.bench.ts reads as time to interactive.
 */
export function markReady(): void {
  if (document.documentElement.dataset.ready === 'true') return;
  document.documentElement.dataset.ready = 'true';
  performance.mark('tapeline:interactive');
}

/** A new page is loading: readiness is per page. */
export function resetReady(): void {
  delete document.documentElement.dataset.ready;
}
