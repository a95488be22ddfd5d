/** Shapes of Polymarket identifiers, in one place. */

/** Condition id: 0x + 64 hex (lower-cased before use). */
export const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;

/** Transaction hash: 0x + 64 lower-case hex, as the Data API and the chain spell it. */
export const TX_HASH = /^0x[0-9a-f]{64}$/;

/** Wallet (proxy wallet) address: 0x + 40 hex. */
export const WALLET = /^0x[0-9a-fA-F]{40}$/;

export const isConditionId = (value: string): boolean => CONDITION_ID.test(value);
