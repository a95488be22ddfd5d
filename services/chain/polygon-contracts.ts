/**
 * Polymarket's contracts on Polygon PoS (chain id 137) and the first blocks with their events. Sources:
 * Polymarket's ctf-exchange, ctf-exchange-v2 and neg-risk-ctf-adapter repositories, clob-client-v2's
 * config and the PnL subgraph's networks.yaml (docs/CHAIN.md has the table with sources). These are the
 * configuration defaults (services/config.ts) and what the simulator's chain emits from.
 */
export const POLYGON_CHAIN_ID = 137;

export const POLYGON_CONTRACTS = {
  exchangeV1: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
  negRiskExchangeV1: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
  exchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchangeV2: '0xe2222d279d744050d28e00520010520000310F59',
  conditionalTokens: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
  /**
   * v2 collateral adapters (pUSD in, USDC.e to the CTF): the exchange-bound pair (CtfCollateralAdapter,
   * NegRiskCtfCollateralAdapter) from the ctf-exchange-v2 README, then the pair the relayer and deposit
   * wallets call. Both pairs are live, and none of them emits events of its own.
   */
  collateralAdapters: [
    '0xADa100874d00e3331D00F2007a9c336a65009718',
    '0xAdA200001000ef00D07553cEE7006808F895c6F1',
    '0xAdA100Db00Ca00073811820692005400218FcE1f',
    '0xadA2005600Dec949baf300f4C6120000bDB6eAab',
  ],
  usdcE: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
  pusd: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  negRiskWrappedCollateral: '0x3A3BD7bb9528E159577F7C2e685CC81A765002E2',
} as const;

/** First blocks with events (subgraph manifests); the v2 exchanges' deployment blocks are not published (0: no bound). */
export const POLYGON_START_BLOCKS = {
  conditionalTokens: 4_023_686,
  exchangeV1: 33_605_403,
  negRiskAdapter: 50_505_403,
  negRiskExchangeV1: 50_505_492,
  exchangeV2: 0,
  negRiskExchangeV2: 0,
} as const;
