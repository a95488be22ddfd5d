/**
 * The verifier's output: a table for people, and verify-last.json for the service (/v1/health reports
 * the last run as `verification`, api/routes/health.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { VERIFY_LAST_RUN_FILE, type VerificationRun } from '../../services/shared/verification.js';
import type { CheckResult } from './checks.js';

type LastRun = VerificationRun;

export function table(results: CheckResult[]): string {
  const rows = results.map((r) => [
    r.id,
    r.name,
    r.skipped ? 'skipped' : `${r.checked} ${r.unit}`,
    r.skipped ? '-' : String(r.violations),
    r.skipped ? r.skipped : r.examples.join(' | ') || '-',
  ]);
  const header = ['check', 'what', 'checked', 'violations', 'first examples'];
  const widths = header.map((h, i) => Math.min(i === 4 ? 200 : 80, Math.max(h.length, ...rows.map((row) => (row[i] as string).length))));
  const line = (cells: string[]) => cells.map((cell, i) => cell.slice(0, widths[i]).padEnd(widths[i] as number)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
}

export function toleranceNotes(results: CheckResult[]): string {
  return results
    .filter((r) => !r.skipped)
    .map((r) => `  ${r.id}: ${r.tolerance}`)
    .join('\n');
}

export function lastRun(results: CheckResult[], withTruth: boolean, wallets: number, durationMs: number): LastRun {
  return {
    time: new Date().toISOString(),
    ok: results.every((r) => r.violations === 0),
    with_truth: withTruth,
    wallets,
    duration_ms: durationMs,
    checks: results.map((r) => ({ id: r.id, name: r.name, checked: r.checked, violations: r.violations, skipped: r.skipped ?? null })),
  };
}

export function writeLastRun(dir: string, run: LastRun): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, VERIFY_LAST_RUN_FILE);
  // Written whole then renamed, so the service never reads half a file.
  // Owner-only, as everything in a service's DATA_DIR (services/shared/data-dir-privacy.ts).
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(run, null, 2), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
  return file;
}
