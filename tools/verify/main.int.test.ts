/** The verify CLI's own argument errors: a line naming the option (with the usage for a parse error), exit 2, no stack trace. */
import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../../test/support/processes.js';

const verify = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'tools/verify/main.ts', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });

test.each([
  [['--bogus'], "Unknown option '--bogus'"],
  [['--key'], "Option '--key <value>' argument missing"],
  [['--key', 'k', '--concurrency', '0'], '--concurrency must be a positive integer'],
])('verify %j exits 2 with %s', (args, message) => {
  const run = verify(...args);
  expect(run.status).toBe(2);
  expect(run.stderr).toContain(`verify: ${message}`);
  if (!message.startsWith('--')) expect(run.stderr).toContain('usage: npm run verify -- --api');
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).toBe('');
});
