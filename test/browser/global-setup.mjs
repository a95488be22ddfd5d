// Jest `browser` project: make sure Debian's Chromium is installed once per run.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export default function globalSetup() {
  const script = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'ensure-chromium.sh');
  execFileSync('bash', [script], { stdio: 'inherit' });
}
