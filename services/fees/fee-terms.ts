/**
 * What a copy-trade fee costs in each currency (pure, exact):
 *   fee_usdc = notional x rate_bps / 10000, half up to one micro-USDC;
 *   credits: fee_usdc x credits per USDC (6 decimals, rounded up);
 *   usdc: fee_usdc in the stablecoin's 6-decimal units;
 *   platform_token / native: fee_usdc / price, in the token's smallest unit, rounded up.
 * A currency the configuration cannot price or receive (no treasury, token or price) is unavailable.
 */
import type { Config, FeeCurrency } from '../config.js';
import { divide, MICRO, mulDiv, parseScaled } from '../shared/decimal.js';

export interface FeeTerms {
  currency: FeeCurrency;
  rateBps: number;
  feeUsdcMicros: bigint;
  amountBaseUnits: bigint;
  decimals: number;
  priceUsdc: string | null;
  chainId: number | null;
  treasury: string | null;
  tokenContracts: string[];
}

export type FeesSettings = Pick<Config, 'fees' | 'platformToken'> & { chainId: number };

const NATIVE_DECIMALS = 18;
const PRICE_SCALE = 18;

/** Smallest units of a token worth `usdcMicros` at `price` USDC per whole token, rounded up. */
function tokenUnits(usdcMicros: bigint, price: string, decimals: number): bigint {
  const priceScaled = parseScaled(price, PRICE_SCALE)!;
  return divide(usdcMicros * 10n ** BigInt(decimals) * 10n ** BigInt(PRICE_SCALE), MICRO * priceScaled, 'ceil');
}

export function feeTerms(settings: FeesSettings, currency: FeeCurrency, notionalMicros: bigint): FeeTerms | { unavailable: string } {
  const rateBps = settings.fees.ratesBps[currency];
  const feeUsdcMicros = mulDiv(notionalMicros, BigInt(rateBps), 10_000n);
  const base = { currency, rateBps, feeUsdcMicros };
  const treasury = settings.fees.treasury ?? null;
  switch (currency) {
    case 'credits': {
      const perUsdc = parseScaled(settings.fees.creditsPerUsdc)!;
      return {
        ...base,
        amountBaseUnits: mulDiv(feeUsdcMicros, perUsdc, MICRO, 'ceil'),
        decimals: 6,
        priceUsdc: null,
        chainId: null,
        treasury: null,
        tokenContracts: [],
      };
    }
    case 'usdc':
      if (!treasury)
        return { unavailable: 'currency: usdc fees need a treasury address (FEE_TREASURY_ADDRESS), which this service has not configured' };
      if (settings.fees.usdcContracts.length === 0)
        return { unavailable: 'currency: no stablecoin contract is configured (FEE_USDC_CONTRACTS)' };
      return {
        ...base,
        amountBaseUnits: feeUsdcMicros,
        decimals: 6,
        priceUsdc: '1',
        chainId: settings.chainId,
        treasury,
        tokenContracts: [...settings.fees.usdcContracts],
      };
    case 'platform_token': {
      const { contract, priceUsdc, decimals } = settings.platformToken;
      if (!treasury || !contract || !priceUsdc || (parseScaled(priceUsdc, PRICE_SCALE) ?? 0n) <= 0n)
        return {
          unavailable:
            'currency: platform_token fees need the token contract, its USDC price and a treasury address, which this service has not configured',
        };
      return {
        ...base,
        amountBaseUnits: tokenUnits(feeUsdcMicros, priceUsdc, decimals),
        decimals,
        priceUsdc,
        chainId: settings.chainId,
        treasury,
        tokenContracts: [contract],
      };
    }
    case 'native': {
      const priceUsdc = settings.fees.nativePriceUsdc;
      if (!treasury || !priceUsdc || (parseScaled(priceUsdc, PRICE_SCALE) ?? 0n) <= 0n)
        return {
          unavailable:
            'currency: native fees need a native coin price (FEE_NATIVE_PRICE_USDC) and a treasury address, which this service has not configured',
        };
      return {
        ...base,
        amountBaseUnits: tokenUnits(feeUsdcMicros, priceUsdc, NATIVE_DECIMALS),
        decimals: NATIVE_DECIMALS,
        priceUsdc,
        chainId: settings.chainId,
        treasury,
        tokenContracts: [],
      };
    }
  }
}
