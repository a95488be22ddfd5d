/**
 * One process at a time on a DATA_DIR's embedded engines. The file log repairs torn tails when it
 * opens (which would cut another process's in-flight append), chDB binds a data folder to one
 * process, and PGlite is one process's WASM database: two services, or a service and a backfill,
 * on one folder would corrupt each other. Whoever opens the embedded engines holds
 * DATA_DIR/tapeline.lock, created exclusively with its pid and role; a lock naming a dead pid (a
 * killed process) is taken over. With every engine a server (Kafka, ClickHouse, PostgreSQL) nothing
 * is local and several processes may share the folder, so no lock is taken.
 */
import fs from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'tapeline.lock';

export type LockRole = 'service' | 'backfill' | 'admin';

export interface LockHolder {
  pid: number;
  role: LockRole;
  started_at: string;
}

export class DataDirBusyError extends Error {
  constructor(
    message: string,
    readonly holder: LockHolder,
  ) {
    super(message);
  }
}

export interface DataDirLock {
  readonly file: string;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | null {
  try {
    const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) && holder.pid > 0 ? holder : null;
  } catch {
    return null;
  }
}

/**
 * Takes the folder for this process, or throws DataDirBusyError naming the live holder (whose role
 * lets the caller explain what to do). `describe` words the refusal for the caller's situation.
 */
export function acquireDataDirLock(
  dataDir: string,
  role: LockRole,
  describe: (holder: LockHolder) => string = (holder) => `${dataDir} is in use by a tapeline ${holder.role} (pid ${holder.pid})`,
): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, role, started_at: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine), { flag: 'wx' });
      return {
        file,
        release: () => {
          if (readHolder(file)?.pid === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    if (holder && holder.pid === process.pid) {
      // Already ours (another part of this process took it): share it; the first taker releases it.
      return { file, release: () => undefined };
    }
    if (holder && isAlive(holder.pid)) throw new DataDirBusyError(describe(holder), holder);
    // A dead holder's lock (or a half-written one): move it aside atomically, so of two processes
    // taking over at once only one removes it, then try to create ours again.
    const aside = `${file}.stale-${process.pid}`;
    try {
      fs.renameSync(file, aside);
      const moved = readHolder(aside);
      if (moved && moved.pid !== holder?.pid && isAlive(moved.pid)) {
        // Someone took it over between our read and the rename: put theirs back.
        fs.renameSync(aside, file);
        throw new DataDirBusyError(describe(moved), moved);
      }
      fs.rmSync(aside, { force: true });
    } catch (error) {
      if (error instanceof DataDirBusyError) throw error;
      // ENOENT: another process moved it first; try again.
    }
  }
  throw new Error(`could not take ${file}`);
}

/** Whether the configured engines put anything of this process in the folder (file log, chDB, PGlite). */
export function usesEmbeddedEngines(engines: { kafkaBrokers?: string; clickhouseUrl?: string; databaseUrl?: string }): boolean {
  return !engines.kafkaBrokers || !engines.clickhouseUrl || !engines.databaseUrl;
}
