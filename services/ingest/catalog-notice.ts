/**
 * Why a market list is empty when the service has no catalog yet: an empty page answers 200 (there is
 * no data), and this sentence, set as the envelope's `notice`, says why, so an offline start is not
 * mistaken for a market-less upstream. Known only where ingestion runs in the API's process.
 */
import { CATALOG_SYNC_SOURCE } from './catalog-sync.js';
import { MARKETS_SOURCE } from './market-poller.js';
import type { SourceStatus } from './source-health.js';
import type { UpstreamStatus } from './upstream-reachability.js';

export function catalogNotice(sources: SourceStatus[], upstreams: UpstreamStatus[]): string | null {
  const catalog = sources.filter((s) => s.source === MARKETS_SOURCE || s.source === CATALOG_SYNC_SOURCE);
  if (catalog.length === 0 || catalog.some((s) => s.last_success_at !== null)) return null;
  const gamma = upstreams.find((u) => u.upstream === 'gamma')?.cause;
  return gamma
    ? `No market has been indexed yet: the market catalog has not synced since the service started because ${gamma} (GET /v1/health has the details).`
    : 'No market has been indexed yet: the market catalog has not synced since the service started (GET /v1/health has the details).';
}
