/**
 * A stream's cursor: for every topic of its channel, each partition's next offset. Sent opaque
 * (base64url of JSON) so clients store and return it without reading it; the service checks it
 * against the log when it comes back (services/streams/stream-service.ts).
 */

/** Topic -> next offset of each partition, in partition order. */
export type Positions = Map<string, number[]>;

const VERSION = 1;

export function encodeCursor(positions: Positions): string {
  return Buffer.from(JSON.stringify({ v: VERSION, p: Object.fromEntries(positions) })).toString('base64url');
}

/** The positions a cursor names, or null when it is not one this service wrote. */
export function decodeCursor(text: string): Positions | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { v, p } = parsed as { v?: unknown; p?: unknown };
  if (v !== VERSION || typeof p !== 'object' || p === null || Array.isArray(p)) return null;
  const positions: Positions = new Map();
  for (const [topic, offsets] of Object.entries(p)) {
    if (!Array.isArray(offsets) || offsets.length === 0) return null;
    if (!offsets.every((o) => Number.isSafeInteger(o) && o >= 0)) return null;
    positions.set(topic, offsets as number[]);
  }
  return positions.size > 0 ? positions : null;
}
