/**
 * The embedded engines (file log, chDB, PGlite) belong to one process at a time, and opening the file
 * log repairs torn tails, which would cut another process's in-flight append. So the backfill CLI and
 * the service never run on the same DATA_DIR at once:
 * - the CLI refuses while a service is live there (DATA_DIR/admin.json names a live pid), and
 * - it holds DATA_DIR/backfill.lock (created exclusively, with its pid) while it runs, which the
 *   service checks at start.
 * A lock left by a killed CLI names a dead pid and is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readLiveAdminEndpoint } from '../admin/admin-endpoint.js';

const LOCK_FILE = 'backfill.lock';

export class DataDirBusyError extends Error {}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of a backfill still running on this data folder, or null. */
export function liveBackfillPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid);
  } catch {
    return null;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) ? pid : null;
}

/** For the service: refuse to open the data folder while a backfill writes into it. */
export function assertNoLiveBackfill(dataDir: string): void {
  const pid = liveBackfillPid(dataDir);
  if (pid !== null) {
    throw new DataDirBusyError(
      `a backfill (pid ${pid}) is writing into ${dataDir}; wait for it to finish (or stop it: it resumes where it stopped) before starting the service`,
    );
  }
}

export interface HeldLock {
  release(): void;
}

/** For the CLI: take the data folder, or explain who has it. */
export function acquireBackfillAccess(dataDir: string): HeldLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString() }), { flag: 'wx' });
      const lock = {
        release: () => {
          try {
            if (Number(JSON.parse(fs.readFileSync(file, 'utf8')).pid) === process.pid) fs.unlinkSync(file);
          } catch {
            // Already gone.
          }
        },
      };
      // Checked after taking the lock: a service starting from now on sees the lock and refuses.
      const service = readLiveAdminEndpoint(dataDir);
      if (service && service.pid !== process.pid) {
        lock.release();
        throw new DataDirBusyError(
          `the tapeline service (pid ${service.pid}, ${service.url}) is running on ${dataDir}; its event log and databases belong to it. ` +
            'Stop the service, run the backfill, then start the service again (it indexes whatever the backfill published).',
        );
      }
      return lock;
    } catch (error) {
      if (error instanceof DataDirBusyError || (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = liveBackfillPid(dataDir);
      if (holder !== null) throw new DataDirBusyError(`another backfill (pid ${holder}) is running on ${dataDir}`);
      // Left by a backfill that was killed: take it over.
      fs.rmSync(file, { force: true });
    }
  }
  throw new DataDirBusyError(`could not take ${file}`);
}
