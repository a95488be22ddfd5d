/** Shared by the event-log integration tests: child processes, polling waits and full reads. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { EventLog, LogMessage } from '../../services/ports/event-log.js';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));
const fixturesDirectory = fileURLToPath(new URL('./fixtures/', import.meta.url));

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitFor(description: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await sleep(10);
  }
}

export interface FixtureProcess {
  child: ChildProcess;
  /** stdout lines received so far. */
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits until a line satisfies `predicate`; fails early (with stderr) if the child exits first. */
  waitForLine(description: string, predicate: (lines: string[]) => boolean): Promise<void>;
  killHard(): Promise<void>;
}

/** Runs `test/eventlog/fixtures/<script>` in a child node process, the way the service runs (tsx). */
export function runFixture(script: string, args: string[]): FixtureProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', `${fixturesDirectory}${script}`, ...args], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  let hasExited = false;
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      hasExited = true;
      resolve({ code, signal });
    }),
  );
  return {
    child,
    lines,
    exited,
    async waitForLine(description, predicate) {
      await waitFor(description, () => {
        if (predicate(lines)) return true;
        if (hasExited) throw new Error(`${script} exited before ${description}; stderr:\n${stderr}`);
        return false;
      });
    },
    async killHard() {
      if (!hasExited) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Reads every message of a topic through a throwaway consumer group, in partition/offset order. */
export async function readAll(log: EventLog, topic: string): Promise<LogMessage[]> {
  const groupId = `read-all-${randomUUID()}`;
  const total = (await log.positions(groupId, topic)).reduce((sum, p) => sum + p.endOffset, 0);
  const messages: LogMessage[] = [];
  const consumer = await log.runConsumer({
    groupId,
    topics: [topic],
    handleBatch: async (batch) => {
      messages.push(...batch.messages);
    },
  });
  await waitFor(`all ${total} messages of ${topic}`, () => messages.length >= total);
  await consumer.stop();
  return messages.sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}
