// Stops what global-setup.mjs started, each engine by its pid, and removes its private folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export default async function teardown() {
  const infraDir = process.env.TAPELINE_TEST_INFRA_DIR;
  if (!infraDir) return;
  execFileSync('bash', [path.join(repoRoot, 'infra/down.sh')], {
    env: { ...process.env, TAPELINE_INFRA_DIR: infraDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  fs.rmSync(infraDir, { recursive: true, force: true });
}
