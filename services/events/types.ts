/** Event types (generated from schemas/*.avsc) plus the names the code gives their shared parts. */
import type { TradeExecuted } from './types.generated.js';

export type * from './types.generated.js';

/** Where a record came from: real upstream data or the project's simulator; the two never mix. */
export type Source = TradeExecuted['source'];
