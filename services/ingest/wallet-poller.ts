/**
 * Data API for tracked wallets.
 *
 * Tracked wallets = the configured list (TRACKED_WALLETS) + the top N wallets by taker volume in the
 * trades this process has ingested (tallied from the trade feed, kept in a checkpoint so a restart
 * keeps the ranking). For each: `/activity` from the wallet's cursor forward (splits, merges and
 * redemptions are needed for correct PnL; ids are deterministic, so the overlap at the cursor is
 * harmless) and a `/positions` snapshot. Holders and open interest have their own poller
 * (market-holdings-poller.ts), so a wallet failure never skips them.
 */
import type { Logger } from '../logger.js';
import type { DeadLetter, PositionSnapshot, Source, TradeExecuted, WalletActivity } from '../events/types.js';
import { CheckpointFile } from './checkpoint.js';
import { normalizeActivity, normalizePosition } from './normalize-data.js';
import type { EventPublisher } from '../events/publisher.js';
import { FRESHNESS_TARGETS_MS, type SourceHealth } from './source-health.js';
import type { UpstreamClient } from './upstream-client.js';

const WALLETS_SOURCE = 'data.wallets';
const PAGE = 500;
const MAX_OFFSET = 10_000;

interface WalletState {
  /** Taker volume (USDC) per wallet seen in the trade feed. */
  volumes: Record<string, number>;
  /** Newest activity timestamp (unix seconds) read per wallet. */
  activityCursor: Record<string, number>;
}

export interface WalletPollerOptions {
  data: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  checkpointFile: string;
  configuredWallets: readonly string[];
  topWallets: number;
  clock?: () => number;
}

export class WalletPoller {
  private readonly checkpoint: CheckpointFile<WalletState>;
  private state: WalletState;

  constructor(private readonly options: WalletPollerOptions) {
    this.checkpoint = new CheckpointFile<WalletState>(options.checkpointFile, { volumes: {}, activityCursor: {} });
    this.state = this.checkpoint.read();
    options.health.register(WALLETS_SOURCE, FRESHNESS_TARGETS_MS.positions);
  }

  /** Fed by the trade poller: every trade it published. */
  noteTrades(trades: readonly TradeExecuted[]): void {
    for (const trade of trades) this.state.volumes[trade.wallet] = (this.state.volumes[trade.wallet] ?? 0) + trade.size_usdc;
  }

  trackedWallets(): string[] {
    const top = Object.entries(this.state.volumes)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, this.options.topWallets)
      .map(([wallet]) => wallet);
    return [...new Set([...this.options.configuredWallets.map((w) => w.toLowerCase()), ...top])];
  }

  async pollOnce(): Promise<{ published: number; deadLettered: number }> {
    const started = this.now();
    const out = { published: 0, deadLettered: 0 };
    try {
      const wallets = this.trackedWallets();
      if (wallets.length === 0) {
        this.options.health.idle(WALLETS_SOURCE);
        return out;
      }
      for (const wallet of wallets) {
        const result = await this.pollWallet(wallet, started);
        out.published += result.published;
        out.deadLettered += result.deadLettered;
      }
      this.checkpoint.write(this.state);
      this.options.health.succeeded(WALLETS_SOURCE, out.published, out.deadLettered, started);
    } catch (error) {
      this.options.health.failed(WALLETS_SOURCE, error);
      throw error;
    }
    return out;
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  private async pollWallet(wallet: string, snapshotAt: number): Promise<{ published: number; deadLettered: number }> {
    const deadLetters: DeadLetter[] = [];
    const activities: WalletActivity[] = [];
    const cursor = this.state.activityCursor[wallet];
    const start = cursor !== undefined ? `&start=${cursor}` : '';
    for (const { raw, source } of await this.pages(`/activity?user=${wallet}&sortBy=TIMESTAMP&sortDirection=ASC${start}`)) {
      const result = normalizeActivity(raw, source, snapshotAt);
      if (result.ok) activities.push(result.value);
      else deadLetters.push(this.letter('activity', raw, result.reason, source, snapshotAt));
    }
    const positions: PositionSnapshot[] = [];
    for (const { raw, source } of await this.pages(`/positions?user=${wallet}&sizeThreshold=0`)) {
      const result = normalizePosition(raw, source, snapshotAt);
      if (result.ok) positions.push(result.value);
      else deadLetters.push(this.letter('positions', raw, result.reason, source, snapshotAt));
    }
    await this.options.publisher.deadLetter(deadLetters);
    const published =
      (await this.options.publisher.publish('walletActivity', activities)) + (await this.options.publisher.publish('positions', positions));
    if (activities.length > 0)
      this.state.activityCursor[wallet] = Math.max(cursor ?? 0, ...activities.map((a) => Math.floor(a.timestamp_ms / 1000)));
    return { published, deadLettered: deadLetters.length };
  }

  private async pages(pathAndQuery: string): Promise<Array<{ raw: unknown; source: Source }>> {
    const rows: Array<{ raw: unknown; source: Source }> = [];
    for (let offset = 0; offset <= MAX_OFFSET; offset += PAGE) {
      const { body, source } = await this.options.data.getJson<unknown>(`${pathAndQuery}&limit=${PAGE}&offset=${offset}`);
      if (!Array.isArray(body))
        throw new Error(`${this.options.data.name}${pathAndQuery.split('?')[0]}: expected an array, got ${typeof body}`);
      for (const raw of body) rows.push({ raw, source });
      if (body.length < PAGE) break;
    }
    return rows;
  }

  private letter(endpoint: string, raw: unknown, reason: string, source: string, at: number): DeadLetter {
    return { stage: 'ingest', source, origin: `${this.options.data.name}/${endpoint}`, reason, raw: JSON.stringify(raw), at_ms: at };
  }
}
