/**
 * DATA_DIR is the service's alone: the event log's records, the analytics store, the control store
 * (API key hashes, webhook secrets in its WAL) and admin.json (the operator token) are nothing for
 * other local users. Every entry point that writes into the folder (npm start, the demo, `npm run
 * service`, the backfill and admin CLIs) calls this first, which
 *
 * - creates the folder 0700, or tightens an existing one this user owns that group or others may
 *   enter (one log line), so nothing below it is reachable by them, whatever its own mode;
 * - sets the process umask to 077, so every file and folder created after this, by any code in the
 *   process, is owner-only itself.
 *
 * The umask rather than explicit modes: most of what lands in the folder is created by code we do not
 * call file by file (chDB's native engine writes its parts, the file log's segments, checkpoints and
 * offsets come from several modules), and the umask is the one setting all of them honour. It applies
 * to the whole process, which writes nothing meant for other users anywhere. PGlite is the exception:
 * its WASM file system gives its files mode 0666 whatever the umask, which is why its own folder is
 * kept 0700 too (services/control/pglite-store.ts).
 */
import fs from 'node:fs';

const OWNER_ONLY_UMASK = 0o077;

export interface PrivacyLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

/** Creates or tightens `dataDir` and makes this process create owner-only files from now on. */
export function claimDataDirPrivately(dataDir: string, logger?: PrivacyLogger): void {
  process.umask(OWNER_ONLY_UMASK);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(dataDir);
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) === 0) return;
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
    // Not ours to change (a shared mount, another user's folder): say so, and go on.
    logger?.warn(
      { dataDir, mode: mode.toString(8) },
      'DATA_DIR is open to group or others and owned by another user; restrict it (chmod 700)',
    );
    return;
  }
  fs.chmodSync(dataDir, 0o700);
  logger?.warn({ dataDir, was: mode.toString(8), now: '700' }, 'DATA_DIR was open to group or others: made it owner-only');
}
