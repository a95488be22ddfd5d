/**
 * Market id -> category (the markets read model), for topic filters on briefing signals. Categories
 * rarely change, so answers are kept in memory (bounded; the oldest entries go first).
 */
import type { AnalyticsStore } from '../ports/analytics-store.js';

const MAX_ENTRIES = 50_000;

export class MarketCategories {
  private readonly known = new Map<string, string>();

  constructor(private readonly store: AnalyticsStore) {}

  async of(marketIds: readonly string[]): Promise<Map<string, string>> {
    const missing = [...new Set(marketIds)].filter((id) => !this.known.has(id));
    if (missing.length > 0) {
      const rows = await this.store.query<{ market_id: string; category: string }>(
        'SELECT market_id, category FROM markets FINAL WHERE market_id IN {ids:Array(String)}',
        { ids: missing },
      );
      for (const row of rows) this.known.set(row.market_id, row.category);
      while (this.known.size > MAX_ENTRIES) this.known.delete(this.known.keys().next().value!);
    }
    return new Map(marketIds.filter((id) => this.known.has(id)).map((id) => [id, this.known.get(id)!]));
  }
}
