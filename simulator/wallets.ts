/** Traders with distinct behaviours, so wallet analytics (win rate, long-shot share, PnL) have signal. */

import { createRng, cumulativeWeights, pickCumulative } from './prng.js';
import type { Behaviour, SimMarket, SimWallet } from './world-types.js';
import { PSEUDONYM_ADJECTIVES, PSEUDONYM_NOUNS, USERNAME_STEMS } from './vocabulary.js';

/** Share of wallets per behaviour; noise traders take whatever is left. */
const BEHAVIOUR_SHARES: [Behaviour, number][] = [
  ['market-maker', 0.015],
  ['whale', 0.04],
  ['scalper', 0.15],
  ['longshot', 0.15],
  ['informed', 0.08],
];

/** How often each behaviour takes liquidity, relative to a noise trader. */
const TAKER_WEIGHT: Record<Behaviour, number> = {
  'market-maker': 0,
  whale: 0.6,
  scalper: 5,
  longshot: 1.2,
  informed: 0.9,
  noise: 1,
};

const FAVOURITE_COUNT: Record<Behaviour, [number, number]> = {
  'market-maker': [0, 0],
  whale: [3, 8],
  scalper: [2, 4],
  longshot: [0, 0],
  informed: [0, 0],
  noise: [3, 12],
};

export function generateWallets(seed: number, count: number, markets: readonly SimMarket[], referenceMs: number): SimWallet[] {
  const rng = createRng(seed, 'wallets');
  const behaviours = assignBehaviours(count);
  const cumulative = cumulativeWeights(markets.map((market) => market.popularity));
  const usedAddresses = new Set<string>();

  return behaviours.map((behaviour, index) => {
    let address = `0x${rng.hex(40)}`;
    while (usedAddresses.has(address)) address = `0x${rng.hex(40)}`;
    usedAddresses.add(address);

    const [minFavourites, maxFavourites] = FAVOURITE_COUNT[behaviour];
    const favourites = new Set<number>();
    const wanted = markets.length === 0 ? 0 : rng.int(minFavourites, maxFavourites);
    for (let tries = 0; favourites.size < wanted && tries < wanted * 5; tries++) {
      favourites.add(pickCumulative(cumulative, rng));
    }

    return {
      index,
      address,
      name: displayName(rng.next(), address, rng, referenceMs),
      pseudonym: `${rng.pick(PSEUDONYM_ADJECTIVES)}-${rng.pick(PSEUDONYM_NOUNS)}`,
      behaviour,
      takerWeight: TAKER_WEIGHT[behaviour] * rng.logNormal(1, 0.5),
      favouriteMarkets: [...favourites],
    };
  });
}

/** Deterministic split by share, guaranteeing one of each behaviour once there are enough wallets. */
function assignBehaviours(count: number): Behaviour[] {
  const out: Behaviour[] = [];
  for (const [behaviour, share] of BEHAVIOUR_SHARES) {
    const wanted = Math.max(count >= 10 ? 1 : 0, Math.round(count * share));
    for (let i = 0; i < wanted && out.length < count; i++) out.push(behaviour);
  }
  while (out.length < count) out.push('noise');
  // Interleave so that wallet index says nothing about behaviour.
  return out
    .map((behaviour, i) => ({ behaviour, key: (i * 2654435761) % 4294967296 }))
    .sort((a, b) => a.key - b.key)
    .map((entry) => entry.behaviour);
}

/** Upstream names are a chosen username, or the checksummed address plus a millisecond suffix. */
function displayName(roll: number, address: string, rng: ReturnType<typeof createRng>, referenceMs: number): string {
  if (roll < 0.55) return `${rng.pick(USERNAME_STEMS)}${rng.chance(0.6) ? rng.int(1, 9999) : ''}`;
  if (roll < 0.85) {
    const mixedCase = [...address.slice(2)].map((ch) => (/[a-f]/.test(ch) && rng.chance(0.5) ? ch.toUpperCase() : ch)).join('');
    return `0x${mixedCase}-${referenceMs - rng.int(1, 400) * 86_400_000}`;
  }
  return '';
}
