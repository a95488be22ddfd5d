// Jest globalSetup of the `engines` project: starts Kafka, the schema registry and PostgreSQL ONCE
// per test run with the same infra/ scripts users run, in a private folder, and hands their
// addresses to the test files through the environment. Tests use unique topics, groups and databases.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function setup() {
  const infraDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-engines-'));
  process.env.TAPELINE_TEST_INFRA_DIR = infraDir;
  const started = Date.now();
  execFileSync('bash', [path.join(repoRoot, 'infra/up.sh')], {
    env: { ...process.env, TAPELINE_INFRA_DIR: infraDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (const line of fs.readFileSync(path.join(infraDir, 'env'), 'utf8').split('\n')) {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line);
    if (match) process.env[`TEST_${match[1]}`] = match[2];
  }
  process.stderr.write(`\n[engines] Kafka, registry and PostgreSQL up in ${((Date.now() - started) / 1000).toFixed(1)} s (${infraDir})\n`);
}
