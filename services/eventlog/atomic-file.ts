import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface DurabilityOptions {
  /** false trades crash safety for speed (tests, throwaway runs): nothing is fsynced. */
  fsync: boolean;
}

/** A rename or a new file is only durable once the directory entry itself is flushed. */
export async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` so that a reader (or a restart after kill -9 / power loss) sees either the old
 * content or the new one, never a mix: write a temp file, flush it, rename over, flush the directory.
 */
export async function writeFileAtomically(path: string, data: string | Buffer, options: DurabilityOptions): Promise<void> {
  // Unique per writer so two processes replacing the same file never share a temp file.
  const tempPath = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(tempPath, 'w');
    try {
      await handle.writeFile(data);
      if (options.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tempPath, path);
  } catch (error) {
    await rm(tempPath, { force: true });
    throw error;
  }
  if (options.fsync) await fsyncDirectory(dirname(path));
}
