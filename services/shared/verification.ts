/**
 * The last `npm run verify` run (tools/verify), as it leaves it in a data folder: /v1/health reports it
 * as `verification`, so whoever watches the service sees whether its trader figures last held up.
 */
import fs from 'node:fs';
import path from 'node:path';

export const VERIFY_LAST_RUN_FILE = 'verify-last.json';

export interface VerificationRun {
  /** When the run finished (ISO). */
  time: string;
  ok: boolean;
  /** Whether the simulator's truth was compared against (a demo); false against a production API. */
  with_truth: boolean;
  wallets: number;
  duration_ms: number;
  checks: Array<{ id: string; name: string; checked: number; violations: number; skipped: string | null }>;
}

/** The last run written into `dataDir`, or null when there is none (or it is unreadable). */
export function readVerificationRun(dataDir: string): VerificationRun | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(dataDir, VERIFY_LAST_RUN_FILE), 'utf8'));
  } catch {
    return null;
  }
  const run = parsed as Partial<VerificationRun> | null;
  if (!run || typeof run.time !== 'string' || typeof run.ok !== 'boolean' || !Array.isArray(run.checks)) return null;
  return {
    time: run.time,
    ok: run.ok,
    with_truth: run.with_truth === true,
    wallets: Number(run.wallets ?? 0),
    duration_ms: Number(run.duration_ms ?? 0),
    checks: run.checks.map((c) => ({
      id: String(c.id),
      name: String(c.name),
      checked: Number(c.checked),
      violations: Number(c.violations),
      skipped: c.skipped == null ? null : String(c.skipped),
    })),
  };
}
