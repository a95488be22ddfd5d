// Test tiers by file suffix: *.unit.test.ts (pure, no I/O), *.int.test.ts (real engines in-process),
// *.e2e.test.ts (the service as child processes), *.abuse.test.ts (the demo under floods), *.browser.test.ts (the web UI in
// headless Chromium). A read model's tests live in its folder
// (services/read-models/<name>/), the rest under test/. One npm script per tier; `npm test` runs all.
const shared = {
  transform: { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.cjs' },
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testEnvironment: 'node',
};

export default {
  // Per-project testTimeout is ignored by jest 30; e2e tests pass their own, longer timeouts.
  testTimeout: 60_000,
  // A worker is replaced after every test file: chDB allows one data directory per process, and a
  // suite whose engine session outlives its afterAll (a native close still under way) made the next
  // suite in that worker fail to open its own.
  workerIdleMemoryLimit: '1MB',
  projects: [
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/{test,services,api,tools,clients,webui}/**/*.unit.test.ts'] },
    { ...shared, displayName: 'integration', testMatch: ['<rootDir>/{test,services,api,tools,clients}/**/*.int.test.ts'] },
    { ...shared, displayName: 'e2e', testMatch: ['<rootDir>/{test,services,api,tools,clients}/**/*.e2e.test.ts'] },
    // Checks over a whole simulated population (the verify e2e): one demo of 2,000+ wallets that takes a
    // core for minutes, run alone so the e2e suites' time limits never compete with it.
    { ...shared, displayName: 'population', testMatch: ['<rootDir>/test/**/*.population.test.ts'] },
    // The abuse suite: the demo as a child process under floods, bounded in count and time.
    { ...shared, displayName: 'abuse', testMatch: ['<rootDir>/{test,services,api,tools}/**/*.abuse.test.ts'] },
    // The service started, read and stopped as a child process: run by the Node version tiers under each
    // supported major (test/node-versions/run-on.mjs), beside the unit tier.
    { ...shared, displayName: 'smoke', testMatch: ['<rootDir>/test/smoke/**/*.smoke.test.ts'] },
    // Real engines as local servers (Kafka, schema registry, PostgreSQL), started once per run.
    {
      ...shared,
      displayName: 'engines',
      testMatch: ['<rootDir>/{test,services,api,tools,clients}/**/*.engines.test.ts'],
      globalSetup: '<rootDir>/test/engines/global-setup.mjs',
      globalTeardown: '<rootDir>/test/engines/global-teardown.mjs',
    },
    // The web UI in headless Chromium (Debian's package, installed by the global setup) against the demo.
    {
      ...shared,
      displayName: 'browser',
      testMatch: ['<rootDir>/test/browser/**/*.browser.test.ts'],
      globalSetup: '<rootDir>/test/browser/global-setup.mjs',
    },
  ],
};
