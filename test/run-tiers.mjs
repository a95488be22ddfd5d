#!/usr/bin/env node
/**
 * `npm test`: runs every test tier (in two lanes, below) and ends with one plain line, `N passed, N failed`,
 * totalled over all tiers, so a CI log shows how many tests ran (a tool's own last line, such as
 * Schemathesis' "2 warnings in 17 s", reads as "no test executed").
 *
 * Counting: a check that is pass/fail as a whole (typecheck, lint) is one test; Jest tiers count
 * their tests (a suite that fails to load counts as one failure); Schemathesis counts one test per
 * API operation (its JUnit report) and prints its generated cases beside; pytest tiers (the Python
 * SDK, the signal executor) count their JUnit test cases. A tier whose command fails
 * without a readable report counts one failure. Every tier runs even after a failure, and the exit
 * code is non-zero when anything failed.
 *
 * TEST_TIERS=unit,integration runs a subset (names below). Each tier runs with TMPDIR set to a
 * directory of its own that is removed when the tier ends.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const jest = ['node', '--experimental-vm-modules', 'node_modules/jest/bin/jest.js'];

/**
 * Two lanes run at once, each its tiers in order: lane `a` the tiers that spread over every core (Jest with a
 * worker per core), lane `b` the tiers that mostly wait on one demo or engine each (a population, a flood,
 * Kafka, a fuzzer, the clients' suites). One lane after another left a core idle for most of lane `b`.
 * TEST_LANES=1 runs every tier in one lane, in the order below.
 * @type {Array<{ name: string; lane: 'a' | 'b'; kind: 'check' | 'jest' | 'junit'; command: string[] }>}
 */
const TIERS = [
  { name: 'typecheck', lane: 'a', kind: 'check', command: ['npm', 'run', '-s', 'typecheck'] },
  { name: 'lint', lane: 'a', kind: 'check', command: ['npm', 'run', '-s', 'lint'] },
  // Pure CPU: one worker per core (Jest's default leaves one core idle on a 2-core machine).
  { name: 'unit', lane: 'a', kind: 'jest', command: [...jest, '--selectProjects', 'unit', '--maxWorkers=100%'] },
  // One worker per core, not Jest's default of one fewer (a single worker on a 2-core machine): these
  // suites spend much of their time waiting on their engines and child processes (README, Tests).
  { name: 'integration', lane: 'a', kind: 'jest', command: [...jest, '--selectProjects', 'integration', '--maxWorkers=100%'] },
  { name: 'e2e', lane: 'a', kind: 'jest', command: [...jest, '--selectProjects', 'e2e', '--maxWorkers=100%'] },
  { name: 'population', lane: 'b', kind: 'jest', command: [...jest, '--selectProjects', 'population'] },
  { name: 'abuse', lane: 'b', kind: 'jest', command: [...jest, '--selectProjects', 'abuse'] },
  { name: 'engines', lane: 'b', kind: 'jest', command: [...jest, '--selectProjects', 'engines'] },
  { name: 'browser', lane: 'a', kind: 'jest', command: [...jest, '--selectProjects', 'browser'] },
  // The unit tier and a start/read/stop of the service under the other supported Node majors (the machine's
  // runs every tier), each binary pinned and cached by the wrapper. Node 24 ends lane `b` (below).
  nodeTier(22, 'a'),
  { name: 'fuzz', lane: 'b', kind: 'junit', command: ['bash', 'test/fuzz/schemathesis.sh'] },
  // The Python SDK's pytest suite and the signal executor's end-to-end suite, each against its own demo.
  // The executor ends lane `a`: with it there, the two lanes take about as long (bench/results/ci-time.json),
  // where lane `b` used to run alone for its last five minutes with a core idle.
  { name: 'python', lane: 'b', kind: 'junit', command: ['bash', 'clients/python/test.sh'] },
  { name: 'executor', lane: 'a', kind: 'junit', command: ['bash', 'clients/executor/test.sh'] },
  // Here, not in lane `a`: lane `a` ended 124 s after lane `b` in one clean-clone run (d3eae15), node24
  // among its last tiers. Which lane ends last varies by about that much between runs.
  nodeTier(24, 'b'),
];

/** The unit and smoke projects under Node `major`. */
function nodeTier(major, lane) {
  return {
    name: `node${major}`,
    lane,
    kind: /** @type {const} */ ('jest'),
    command: [
      'node',
      'test/node-versions/run-on.mjs',
      String(major),
      ...jest.slice(1),
      '--selectProjects',
      'unit',
      'smoke',
      '--maxWorkers=100%',
    ],
  };
}

const selected = process.env.TEST_TIERS ? new Set(process.env.TEST_TIERS.split(',').map((s) => s.trim())) : null;
const unknown = selected ? [...selected].filter((name) => !TIERS.some((tier) => tier.name === name)) : [];
if (unknown.length > 0) {
  console.error(`unknown tier(s): ${unknown.join(', ')}; tiers: ${TIERS.map((t) => t.name).join(', ')}`);
  process.exit(2);
}

const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-tiers-'));
fs.chmodSync(reports, 0o755);
const chosen = TIERS.filter((tier) => !selected || selected.has(tier.name));
const laneCount = process.env.TEST_LANES === '1' ? 1 : 2;
const lanes = laneCount === 1 ? [chosen] : ['a', 'b'].map((lane) => chosen.filter((tier) => tier.lane === lane));
const results = new Map();
const laneSeconds = await Promise.all(lanes.map((lane) => runLane(lane)));
const ordered = chosen.map((tier) => results.get(tier.name));

/** Runs a lane's tiers in order; resolves its wall time in seconds (the run takes as long as its longest lane). */
async function runLane(tiers) {
  const started = Date.now();
  for (const tier of tiers) results.set(tier.name, await runTier(tier));
  return Math.round((Date.now() - started) / 1000);
}

/** Runs one tier, its output kept in a file and printed whole when it ends, so two lanes never interleave lines. */
async function runTier(tier) {
  const started = Date.now();
  const report = path.join(reports, `${tier.name}.${tier.kind === 'junit' ? 'xml' : 'json'}`);
  const args = [...tier.command.slice(1)];
  if (tier.kind === 'jest') args.push('--json', `--outputFile=${report}`);
  // Each tier gets a temporary directory of its own, removed when it ends: the suites' data
  // directories (chDB, PGlite, file logs, browser profiles) never pile up in the machine's /tmp.
  // World-traversable like /tmp itself: the engines tier runs PostgreSQL as its own user under it.
  const scratch = fs.mkdtempSync(path.join(reports, `${tier.name}-tmp-`));
  fs.chmodSync(scratch, 0o1777);
  const env = { ...process.env, TMPDIR: scratch, ...(tier.kind === 'junit' ? { JUNIT_REPORT: report } : {}) };
  const outputFile = path.join(reports, `${tier.name}.log`);
  const output = fs.openSync(outputFile, 'w');
  console.log(`== ${tier.name}: started (${tier.command.join(' ')})`);
  const exitCode = await new Promise((resolve) => {
    const child = spawn(tier.command[0], args, { cwd: root, stdio: ['ignore', output, output], env });
    child.on('error', () => resolve(1));
    child.on('exit', (code) => resolve(code ?? 1));
  });
  fs.closeSync(output);
  fs.rmSync(scratch, { recursive: true, force: true });
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`\n== ${tier.name}: ${tier.command.join(' ')} (exit ${exitCode}, ${seconds} s)`);
  process.stdout.write(fs.readFileSync(outputFile));
  return { name: tier.name, seconds, exitCode, ...count(tier, exitCode, report) };
}

// What failed, short, just above the totals: a CI log is often read from its end only.
const failures = ordered.flatMap((r) => (r.failures ?? []).map((f) => `[${r.name}] ${f}`));
if (failures.length > 0) {
  console.log('\n== failures (each cut to its first and last lines; the full text is above)');
  for (const failure of failures.slice(0, 12)) console.log(`${failure}\n`);
  if (failures.length > 12) console.log(`... and ${failures.length - 12} more`);
}

if (lanes.length > 1) console.log(`\n== lanes: ${lanes.map((_, i) => `${'ab'[i]} ${laneSeconds[i]} s`).join(', ')}`);
console.log('\n== totals by tier');
for (const r of ordered) {
  const extra = r.note ? `, ${r.note}` : '';
  console.log(
    `${r.name.padEnd(12)} ${String(r.passed).padStart(5)} passed, ${String(r.failed).padStart(3)} failed  (${r.seconds} s${extra})`,
  );
}
const passed = ordered.reduce((sum, r) => sum + r.passed, 0);
const failed = ordered.reduce((sum, r) => sum + r.failed, 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || ordered.some((r) => r.exitCode !== 0) ? 1 : 0);

function count(tier, exitCode, report) {
  if (tier.kind === 'check') return exitCode === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
  if (tier.kind === 'jest') {
    const json = readJson(report);
    if (!json) return { passed: 0, failed: 1, note: 'no Jest report' };
    const failed = json.numFailedTests + json.numRuntimeErrorTestSuites;
    // Jest exits non-zero on, e.g., open handles or a failing global setup even with every test green.
    const stray = exitCode !== 0 && failed === 0 ? 1 : 0;
    return {
      passed: json.numPassedTests,
      failed: failed + stray,
      note: stray ? `exit code ${exitCode}` : undefined,
      failures: jestFailures(json),
    };
  }
  const xml = fs.existsSync(report) ? fs.readFileSync(report, 'utf8') : '';
  const cases = [...xml.matchAll(/<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)];
  if (cases.length === 0) return { passed: 0, failed: 1, note: 'no JUnit report' };
  const failedCases = cases.filter((c) => /<(failure|error)\b/.test(c[2] ?? '')).length;
  const stray = exitCode !== 0 && failedCases === 0 ? 1 : 0;
  const generated = /(\d+) generated/.exec(fs.existsSync(`${report}.summary`) ? fs.readFileSync(`${report}.summary`, 'utf8') : '');
  return {
    passed: cases.length - failedCases,
    failed: failedCases + stray,
    note:
      [generated ? `${generated[1]} generated cases` : null, stray ? `exit code ${exitCode}` : null].filter(Boolean).join(', ') ||
      undefined,
  };
}

function jestFailures(json) {
  const out = [];
  for (const suite of json.testResults ?? []) {
    const file = path.relative(root, suite.name ?? '');
    const failedTests = (suite.assertionResults ?? []).filter((a) => a.status === 'failed');
    for (const test of failedTests) out.push(`${file}: ${test.fullName}\n${excerpt((test.failureMessages ?? []).join('\n'))}`);
    if (failedTests.length === 0 && suite.status === 'failed') out.push(`${file}\n${excerpt(suite.message ?? '')}`);
  }
  return out;
}

/** The first and last lines of a failure, without terminal colours. */
function excerpt(text, head = 14, tail = 10) {
  const lines = stripVTControlCharacters(text)
    .split('\n')
    .map((line) => line.slice(0, 240));
  const shown =
    lines.length <= head + tail
      ? lines
      : [...lines.slice(0, head), `    [... ${lines.length - head - tail} lines ...]`, ...lines.slice(-tail)];
  return shown.map((line) => `    ${line}`).join('\n');
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}
