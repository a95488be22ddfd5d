/**
 * The static part of the generated world: what exists and how it is scheduled to end. Everything that
 * changes with time (trades, prices, positions, closure status) lives in SimulatorState.
 * Times are epoch milliseconds unless the name says micros; Gamma shows micro-precision timestamps.
 */

export type Category = 'Politics' | 'Sports' | 'Crypto' | 'Economics' | 'Tech' | 'Culture' | 'Geopolitics';

export interface SimTag {
  id: string;
  label: string;
  slug: string;
  forceShow?: boolean;
  createdAtMicros: number;
  updatedAtMicros: number;
}

export interface SimSeries {
  index: number;
  id: string;
  ticker: string;
  slug: string;
  title: string;
  recurrence: 'daily' | 'hourly';
  image: string;
  createdAtMicros: number;
  commentCount: number;
  eventIndexes: number[];
}

export interface SimEvent {
  index: number;
  id: string;
  slug: string;
  title: string;
  description: string;
  category: Category;
  resolutionSource: string;
  image: string;
  tagIds: string[];
  seriesIndex: number | null;
  negRisk: boolean;
  /** Shared by every member market of a neg-risk event (0x + 64 hex). */
  negRiskMarketId: string | null;
  marketIndexes: number[];
  createdAtMicros: number;
  startDateMicros: number;
  endDateMs: number;
  /** Sports games and recurring up/down windows have a start time distinct from creation. */
  startTimeMs: number | null;
  featured: boolean;
  commentCount: number;
  archived: boolean;
}

export interface SimMarket {
  index: number;
  id: string;
  eventIndex: number;
  question: string;
  slug: string;
  description: string;
  category: Category;
  conditionId: string;
  questionId: string;
  negRiskRequestId: string | null;
  outcomes: [string, string];
  /** Token id of outcome 0 then outcome 1; 76-78 digit decimal strings. */
  tokenIds: [string, string];
  groupItemTitle: string | null;
  sportsMarketType: 'moneyline' | null;
  gameStartTimeMs: number | null;
  /** Inactive neg-risk placeholder ("Other", "Person P"): no prices, no book, no trades. */
  placeholder: boolean;
  tickSize: 0.01 | 0.001;
  orderMinSize: number;
  /** Quoted spread, in ticks; popular markets quote tighter. */
  spreadTicks: number;
  /** Typical resting size per book level, in shares. */
  depthShares: number;
  /** Relative share of trading activity (power law across markets). */
  popularity: number;
  createdAtMicros: number;
  startDateMicros: number;
  acceptingOrdersFromMs: number;
  endDateMs: number;
  /** When trading stops: endDate for markets that end inside the simulated horizon, else null. */
  closesAtMs: number | null;
  /** Whether closing also resolves it (false: "closed, awaiting resolution"). */
  resolvesOnClose: boolean;
  /** Decided at generation so price paths and informed traders can lean toward it. */
  winningOutcome: 0 | 1;
  /** Resolves 50-50 (a void): both outcomes pay 0.5, there is no winner. */
  voided: boolean;
  /** Listed by Gamma only with archived=true (old catalog entries). */
  archived: boolean;
  initialYesPrice: number;
  /** Standard deviation of the per-minute YES price move. */
  volatilityPerMinute: number;
  image: string;
  resolutionSource: string;
  /** Resolved markets sometimes still show only ["proposed"] in their UMA history (README §2). */
  umaHistoryLagging: boolean;
  submittedBy: string;
  resolvedBy: string;
}

export type Behaviour = 'whale' | 'scalper' | 'longshot' | 'informed' | 'noise' | 'market-maker';

export interface SimWallet {
  index: number;
  /** 0x + 40 lowercase hex, as the Data API shows proxy wallets. */
  address: string;
  name: string;
  pseudonym: string;
  behaviour: Behaviour;
  /** Relative chance of being the taker of the next trade; 0 for market makers. */
  takerWeight: number;
  favouriteMarkets: number[];
}

export interface World {
  seed: number;
  /** Start of the generated history (ms); price paths are anchored here. */
  originMs: number;
  /** The clock reading the world was generated at. */
  generatedAtMs: number;
  tags: SimTag[];
  series: SimSeries[];
  events: SimEvent[];
  markets: SimMarket[];
  wallets: SimWallet[];
}
