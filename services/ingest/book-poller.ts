/**
 * CLOB REST books: batch `POST /books` over every tradable token (500 per request, upstream's
 * batch size), publishing each book whose hash changed since we last published it (the hash is the
 * book's identity: its event id is token + hash) and the midpoint it implies. This is the
 * reconciliation path behind the websocket, and the resync the websocket uses after a gap.
 */
import type { Logger } from '../logger.js';
import type { BookSnapshot, DeadLetter, PriceTick, Source } from '../events/types.js';
import { midpointTick, normalizeBook } from './normalize-clob.js';
import type { EventPublisher } from '../events/publisher.js';
import { FRESHNESS_TARGETS_MS, type SourceHealth } from './source-health.js';
import type { UpstreamClient } from './upstream-client.js';

const BATCH = 500;
const BOOKS_SOURCE = 'clob.books';

export interface BookPollerOptions {
  clob: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  /** Token ids to cover (outcome tokens of tradable markets). */
  tokens: () => string[];
  clock?: () => number;
}

export class BookPoller {
  private readonly publishedHash = new Map<string, string>();

  constructor(private readonly options: BookPollerOptions) {
    options.health.register(BOOKS_SOURCE, FRESHNESS_TARGETS_MS.books);
  }

  async pollOnce(): Promise<{ published: number; deadLettered: number }> {
    const started = (this.options.clock ?? Date.now)();
    try {
      const tokens = this.options.tokens();
      if (tokens.length === 0) {
        this.options.health.idle(BOOKS_SOURCE);
        return { published: 0, deadLettered: 0 };
      }
      const result = await this.fetchAndPublish(tokens);
      this.options.health.succeeded(BOOKS_SOURCE, result.published, result.deadLettered, started);
      return result;
    } catch (error) {
      this.options.health.failed(BOOKS_SOURCE, error);
      throw error;
    }
  }

  /** Fetches the books of these tokens, publishes the changed ones, and returns all it received. */
  async fetchAndPublish(tokens: string[]): Promise<{ published: number; deadLettered: number; books: BookSnapshot[] }> {
    const books: BookSnapshot[] = [];
    const deadLetters: DeadLetter[] = [];
    for (let i = 0; i < tokens.length; i += BATCH) {
      const batch = tokens.slice(i, i + BATCH);
      const { body, source } = await this.options.clob.getJson<unknown>('/books', {
        method: 'POST',
        body: batch.map((token_id) => ({ token_id })),
      });
      if (!Array.isArray(body)) throw new Error(`${this.options.clob.name}/books: expected an array, got ${typeof body}`);
      const now = (this.options.clock ?? Date.now)();
      for (const raw of body) {
        const result = normalizeBook(raw, source as Source, now, 'clob-rest');
        if (result.ok) books.push(result.value);
        else
          deadLetters.push({
            stage: 'ingest',
            source,
            origin: `${this.options.clob.name}/books`,
            reason: result.reason,
            raw: JSON.stringify(raw),
            at_ms: now,
          });
      }
    }
    const changed = books.filter((book) => this.publishedHash.get(book.asset_id) !== book.hash);
    const ticks = changed.map(midpointTick).filter((tick): tick is PriceTick => tick !== null);
    await this.options.publisher.deadLetter(deadLetters);
    const published =
      (await this.options.publisher.publish('bookSnapshots', changed)) + (await this.options.publisher.publish('priceTicks', ticks));
    for (const book of changed) this.publishedHash.set(book.asset_id, book.hash);
    return { published, deadLettered: deadLetters.length, books };
  }

  /** Called when the websocket published a book, so the next REST poll does not publish it again. */
  notePublished(assetId: string, hash: string): void {
    this.publishedHash.set(assetId, hash);
  }
}
