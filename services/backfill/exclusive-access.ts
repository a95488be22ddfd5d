/**
 * The backfill CLI and the service never run on the same DATA_DIR at once: both open the embedded
 * engines, so both take the folder's lock (services/shared/data-dir-lock.ts), and each explains the
 * other when it finds the lock held.
 */
import { readLiveAdminEndpoint } from '../admin/admin-endpoint.js';
import { acquireDataDirLock, type DataDirLock, type LockHolder } from '../shared/data-dir-lock.js';

export { DataDirBusyError } from '../shared/data-dir-lock.js';

export type HeldLock = DataDirLock;

/** For the CLI: take the data folder, or explain who has it. */
export function acquireBackfillAccess(dataDir: string): HeldLock {
  return acquireDataDirLock(dataDir, 'backfill', (holder: LockHolder) => {
    if (holder.role === 'backfill') return `another backfill (pid ${holder.pid}) is running on ${dataDir}`;
    if (holder.role === 'admin') return `an admin command (pid ${holder.pid}) has ${dataDir} open; retry when it finished`;
    const url = readLiveAdminEndpoint(dataDir)?.url;
    return (
      `the tapeline service (pid ${holder.pid}${url ? `, ${url}` : ''}) is running on ${dataDir}; its event log and databases belong to it. ` +
      'Stop the service, run the backfill, then start the service again (it indexes whatever the backfill published).'
    );
  });
}

/** How the service explains a folder it cannot take. */
export function serviceRefusal(dataDir: string, holder: LockHolder): string {
  if (holder.role === 'backfill') {
    return `a backfill (pid ${holder.pid}) is writing into ${dataDir}; wait for it to finish (or stop it: it resumes where it stopped) before starting the service`;
  }
  if (holder.role === 'admin') return `an admin command (pid ${holder.pid}) has ${dataDir} open; retry when it finished`;
  return `another tapeline process (pid ${holder.pid}) is running on ${dataDir}; its embedded event log and databases belong to it (give this one its own DATA_DIR, or use Kafka, ClickHouse and PostgreSQL servers to run several)`;
}
