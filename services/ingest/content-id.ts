/** Deterministic event ids: the same upstream content always gets the same id, so re-ingesting is harmless. */
import crypto from 'node:crypto';

/** `<identity>:<16 hex of the content>`; `ingested_at_ms` never takes part (it changes every poll). */
export function contentId(identity: string, content: Record<string, unknown>): string {
  const { ingested_at_ms: _ignored, event_id: _self, ...rest } = content;
  return `${identity}:${hashParts([JSON.stringify(rest)])}`;
}

/** 32 hex of sha256 over the parts, joined by '|'. */
export function hashParts(parts: ReadonlyArray<string | number | null>, length = 16): string {
  return crypto
    .createHash('sha256')
    .update(parts.map((p) => (p === null ? '' : String(p))).join('|'))
    .digest('hex')
    .slice(0, length);
}
