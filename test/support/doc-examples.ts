/**
 * The code examples of the documentation (README.md, docs/*.md, clients/*\/README.md): every fenced
 * block, and how a test runs it against a demo so that no example can drift from the service.
 *
 * A block's info string says what it is:
 * - `sh`/`bash`: run by bash (errexit, pipefail) with `curl` failing on an HTTP error status;
 * - `ts`: run by tsx, `./clients/...` imports resolved from the repository root;
 * - `python`: run by the Python clients' virtual environment (clients/python/venv.sh);
 * - `json`: parsed;
 * - `text`: not an example (diagrams, output);
 * - a second word `no-run` (```sh no-run): shown, not run (starts a long-lived process, installs
 *   something, needs infrastructure or a public host); the surrounding text says so.
 * Any other block is an error: an example nothing checks is one that drifts.
 *
 * Examples are written for `npm run demo` on :8080; the runner points them at the test's demo by
 * replacing the placeholders of `placeholders` and exporting `KEY`, `TAPELINE_API_KEY` and `TAPELINE_BASE_URL`
 * (and `EXECUTOR_STATE_DIR`, a scratch folder, so nothing is left in the checkout).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './processes.js';

type ExampleKind = 'shell' | 'typescript' | 'python' | 'json' | 'text' | 'no-run' | 'unknown';

export interface DocExample {
  /** Repository-relative path of the markdown file. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  info: string;
  kind: ExampleKind;
  code: string;
}

const LANGUAGES: Record<string, ExampleKind> = {
  sh: 'shell',
  bash: 'shell',
  ts: 'typescript',
  python: 'python',
  json: 'json',
  text: 'text',
};

/** The documentation whose examples are checked, repository-relative. */
export function documentationFiles(root = REPO_ROOT): string[] {
  const docs = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const clients = fs
    .readdirSync(path.join(root, 'clients'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(root, 'clients', entry.name, 'README.md')))
    .map((entry) => `clients/${entry.name}/README.md`);
  return ['README.md', ...docs.sort(), ...clients.sort()];
}

export function extractExamples(file: string, markdown: string): DocExample[] {
  const examples: DocExample[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, rest] = open as unknown as [string, string, string, string];
    const info = rest.trim();
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      if (line.trim() === fence || (line.trim().startsWith(fence) && line.trim().replace(/`/g, '') === '')) break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    const words = info.split(/\s+/).filter(Boolean);
    const kind: ExampleKind = words.includes('no-run') ? 'no-run' : (LANGUAGES[words[0] ?? ''] ?? 'unknown');
    examples.push({ file, line: i + 1, info, kind, code: `${body.join('\n')}\n` });
    i = j;
  }
  return examples;
}

export function allExamples(root = REPO_ROOT): DocExample[] {
  return documentationFiles(root).flatMap((file) => extractExamples(file, fs.readFileSync(path.join(root, file), 'utf8')));
}

/** What a running demo offers the examples. */
export interface ExampleContext {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  dataDir: string;
  /** A Tier 2 key, exported as KEY and TAPELINE_API_KEY. */
  key: string;
  /** A market with trades and candles (its slug stands for `<condition id or slug>`). */
  marketSlug: string;
  /** A wallet with trades (stands for `0x...`). */
  wallet: string;
  /** The Python clients' virtual environment (clients/python/venv.sh). */
  venv: string;
}

/** The placeholders an example may use for what only the reader's own service knows. */
function placeholders(context: ExampleContext): Array<[string | RegExp, string]> {
  const hostPort = context.origin.replace(/^https?:\/\//, '');
  return [
    [/\b(?:localhost|127\.0\.0\.1):8080\b/g, hostPort],
    [/\.\/data-demo\b/g, context.dataDir],
    ['<condition id or slug>', context.marketSlug],
    ['0x...', context.wallet],
  ];
}

export function substitute(code: string, context: ExampleContext): string {
  let out = code;
  for (const [pattern, value] of placeholders(context)) out = out.split(pattern as string).join(value);
  return out;
}

export interface ExampleRun {
  ok: boolean;
  output: string;
  ms: number;
}

/** Runs one example (shell, typescript, python or json) against the demo; anything else is an error. */
export async function runExample(example: DocExample, context: ExampleContext, timeoutMs = 90_000): Promise<ExampleRun> {
  const started = Date.now();
  const code = substitute(example.code, context);
  // Under the repository's node_modules, so an example's package imports resolve as they would in the checkout.
  const scratchRoot = path.join(REPO_ROOT, 'node_modules', '.cache', 'tapeline-doc-examples');
  fs.mkdirSync(scratchRoot, { recursive: true });
  const scratch = fs.mkdtempSync(path.join(scratchRoot, 'example-'));
  const env: NodeJS.ProcessEnv = {
    PATH: `${path.join(context.venv, 'bin')}:${path.join(REPO_ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '',
    TMPDIR: os.tmpdir(),
    KEY: context.key,
    TAPELINE_API_KEY: context.key,
    TAPELINE_BASE_URL: `${context.origin}/v1`,
    LOG_PRETTY: 'false',
    // The executor's state (its webhook secret) goes to the scratch folder, not the checkout.
    EXECUTOR_STATE_DIR: path.join(scratch, 'executor-state'),
  };
  try {
    switch (example.kind) {
      case 'shell': {
        // curl -s exits 0 on a 4xx/5xx envelope; --fail-with-body makes a refused call fail the example.
        const prelude = 'set -eo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n';
        return finish(await run('bash', ['-c', prelude + code], env, timeoutMs), started);
      }
      case 'typescript': {
        const file = path.join(scratch, 'example.mts');
        fs.writeFileSync(file, code.replace(/(['"])\.\/clients\//g, `$1${REPO_ROOT}/clients/`));
        return finish(await run(process.execPath, ['--import', 'tsx', file], env, timeoutMs), started);
      }
      case 'python': {
        const file = path.join(scratch, 'example.py');
        fs.writeFileSync(file, code);
        return finish(await run(path.join(context.venv, 'bin', 'python'), [file], env, timeoutMs), started);
      }
      case 'json':
        try {
          JSON.parse(code);
          return { ok: true, output: '', ms: Date.now() - started };
        } catch (error) {
          return { ok: false, output: String(error), ms: Date.now() - started };
        }
      default:
        return { ok: false, output: `a ${example.kind} block cannot be run (info string "${example.info}")`, ms: 0 };
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

export function isRunnable(example: DocExample): boolean {
  return example.kind === 'shell' || example.kind === 'typescript' || example.kind === 'python' || example.kind === 'json';
}

function finish(result: { code: number | null; output: string }, started: number): ExampleRun {
  return { ok: result.code === 0, output: result.output, ms: Date.now() - started };
}

/**
 * Runs the example in a process group of its own and ends the whole group when it finishes or times
 * out: an example that starts something long-lived (or a bash killed on timeout) must not leave its
 * children running, which execFile's timeout alone would (it signals only the direct child).
 */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const append = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-16_000);
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    const endGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is already gone
      }
    };
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      endGroup();
    }, timeoutMs);
    // Its children end with it (their pipes would otherwise keep 'close' from firing).
    child.once('exit', () => {
      clearTimeout(timer);
      endGroup();
    });
    child.once('close', (code) => {
      resolve({ code: timedOut ? null : code, output: `${output}${timedOut ? `\n(timed out after ${timeoutMs} ms)` : ''}`.slice(-4000) });
    });
  });
}
