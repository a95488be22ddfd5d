/**
 * The taker fee formula on hand-computed cases, and the fee fields read from Polymarket's recorded
 * Gamma markets (feeSchedule is the schedule; the legacy base fees are not a rate).
 */
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import { feeScheduleOf, NO_FEE, takerFeeMicros } from '../../services/fees/taker-fee.js';
import { formatScaled, parseScaled } from '../../services/shared/decimal.js';
import { readSample } from '../support/shared-samples.js';

const FALLBACK = { rate: 0.25, exponent: 2 };
const micros = (text: string) => parseScaled(text)!;
const fee = (shares: string, price: string, rate: number, exponent: number) =>
  formatScaled(
    takerFeeMicros(
      micros(shares),
      micros(price),
      feeScheduleOf({ fees_enabled: true, fee_rate: rate, fee_exponent: exponent, fee_taker_only: true }, FALLBACK),
    ),
  );

test('hand-computed fees: shares x rate x (p(1-p))^exponent, half up to one micro-USDC', () => {
  // 100 x 0.25 x (0.5 x 0.5)^2 = 100 x 0.25 x 0.0625 = 1.5625 (the "$1.56 per 100 contracts at $0.50" of 15-minute crypto markets)
  expect(fee('100', '0.5', 0.25, 2)).toBe('1.5625');
  // 100 x 0.07 x 0.25 = 1.75
  expect(fee('100', '0.5', 0.07, 1)).toBe('1.75');
  // The v2 on-chain example: 50 x 0.03 x 0.32 x 0.68 = 0.3264 (FeeCharged 326400)
  expect(fee('50', '0.32', 0.03, 1)).toBe('0.3264');
  // 7 x 0.04 x 0.123 x 0.877 = 0.28 x 0.107871 = 0.03020388 -> 0.030204 (half up at the 6th decimal)
  expect(fee('7', '0.123', 0.04, 1)).toBe('0.030204');
  // 3 x 0.25 x (0.99 x 0.01)^2 = 3 x 0.25 x 0.00009801 = 0.0000735075 -> 0.000074
  expect(fee('3', '0.99', 0.25, 2)).toBe('0.000074');
  expect(fee('100', '0.5', 0, 1)).toBe('0');
});

test('schedules: disabled markets pay nothing; enabled without a schedule pay the fallback and say so', () => {
  expect(feeScheduleOf({ fees_enabled: false, fee_rate: 0.07, fee_exponent: 1, fee_taker_only: true }, FALLBACK)).toBe(NO_FEE);
  expect(feeScheduleOf({ fees_enabled: true, fee_rate: null, fee_exponent: null, fee_taker_only: null }, FALLBACK)).toEqual({
    rateMicros: 250_000n,
    exponent: 2,
    basis: 'fallback',
  });
  expect(feeScheduleOf({ fees_enabled: true, fee_rate: 0.03, fee_exponent: 1, fee_taker_only: true }, FALLBACK)).toEqual({
    rateMicros: 30_000n,
    exponent: 1,
    basis: 'market',
  });
});

test.each([
  [
    'gamma/market_by_id_resolved_tennis_recorded_cassette.json',
    { fees_enabled: true, fee_type: 'sports_fees_v2', fee_rate: 0.03, fee_exponent: 1, fee_taker_only: true },
  ],
  [
    'gamma/market_by_id_btc_updown_5m_near_close.json',
    { fees_enabled: true, fee_type: 'crypto_fees', fee_rate: 0.25, fee_exponent: 2, fee_taker_only: true },
  ],
  [
    'gamma/market_open_negrisk_member_newsom_2028.json',
    { fees_enabled: true, fee_type: 'politics_fees', fee_rate: 0.04, fee_exponent: 1, fee_taker_only: true },
  ],
  // Fees on, no feeSchedule: flagged by a null rate (paper fills then use the fallback schedule).
  [
    'gamma/market_open_btc_updown_5m_with_event_series.json',
    { fees_enabled: true, fee_type: 'crypto_fees', fee_rate: null, fee_exponent: null, fee_taker_only: null },
  ],
  [
    'gamma/market_open_ceasefire_before_gta6.json',
    { fees_enabled: false, fee_type: null, fee_rate: null, fee_exponent: null, fee_taker_only: null },
  ],
])('fee fields of %s', (file, expected) => {
  const parsed = normalizeGammaMarket(readSample(file), 'polymarket', Date.UTC(2026, 5, 1));
  if (!parsed.ok) throw new Error(parsed.reason);
  expect(parsed.value).toMatchObject(expected);
});
