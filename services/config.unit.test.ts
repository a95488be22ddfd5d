/** The settings tree: each variable lands in its place in Config, defaults that depend on others follow them, errors name the variable. */
import { ConfigError, loadConfig, settingList } from './config.js';

test('each variable sets the Config field it is declared at', () => {
  const config = loadConfig({
    PORT: '9000',
    CHAIN_CONFIRMATIONS: '7',
    WEBHOOK_TIMEOUT_MS: '2500',
    QUOTA_TIER2_PER_DAY: '5',
    CHAIN_START_BLOCK_EXCHANGE_V2: '42',
  });
  expect(config.port).toBe(9000);
  expect(config.chain.confirmations).toBe(7);
  expect(config.webhooks.timeoutMs).toBe(2500);
  expect(config.access.quotasPerDay['2']).toBe(5);
  expect(config.chain.contracts.exchangeV2.startBlock).toBe(42);
  // Neighbours keep their defaults.
  expect(config.fees.confirmations).toBe(12);
  expect(config.ingest.timeoutMs).toBe(15_000);
});

test('defaults that depend on other settings follow them', () => {
  const defaults = loadConfig({});
  expect(defaults.admin).toEqual({ host: '127.0.0.1', port: 9464, portIsDefault: true });
  expect(defaults.access.authFailuresPerPrefixPerMinute).toBe(10 * defaults.access.authFailuresPerIpPerMinute);
  expect(defaults.chain.startBlock).toBeNull();
  expect(defaults.webhooks.retentionMs).toBe(30 * 86_400_000);

  const set = loadConfig({
    ADMIN_PORT: '9464',
    AUTH_FAILURES_PER_IP_PER_MINUTE: '7',
    CHAIN_LOG_RANGE_BLOCKS: '5000',
    CHAIN_LOG_RANGE_MAX_BLOCKS: '100',
    CREDITS_PER_CALL: '3',
    POLYGON_RPC_URL: '',
    POLYMARKET_GAMMA_URL: 'http://127.0.0.1:1///',
  });
  expect(set.admin.portIsDefault).toBe(false);
  expect(set.access.authFailuresPerPrefixPerMinute).toBe(70);
  expect(set.chain.logRangeBlocks).toBe(100);
  expect(set.access.creditsPerCall).toBe(3);
  expect(set.access.thresholds.tier2Credits).toBe(3);
  expect(set.chain.rpcUrl).toBeNull();
  expect(set.upstream.gammaUrl).toBe('http://127.0.0.1:1');
  expect(Object.isFrozen(set.chain.contracts.exchangeV1)).toBe(true);
});

test('a bad value is refused naming its variable', () => {
  expect(() => loadConfig({ CHAIN_CONFIRMATIONS: 'x' })).toThrow(/^invalid configuration: CHAIN_CONFIRMATIONS: /);
  expect(() => loadConfig({ FEE_RATES_BPS: 'credits=1' })).toThrow(
    new ConfigError('invalid configuration: FEE_RATES_BPS: no rate for platform_token, usdc, native'),
  );
  expect(() => loadConfig({ FEE_USDC_CONTRACTS: 'nope' })).toThrow('FEE_USDC_CONTRACTS: nope is not an address');
});

test('every variable is declared once, with a description', () => {
  const names = settingList().map(({ setting }) => setting.env);
  expect(new Set(names).size).toBe(names.length);
  expect(settingList().filter(({ setting }) => !setting.schema.description)).toEqual([]);
});
