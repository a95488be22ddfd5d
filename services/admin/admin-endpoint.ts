/**
 * Where the running service can be reached for admin actions: DATA_DIR/admin.json holds the URL,
 * a random admin token and the pid, readable only by the owner. The embedded control store
 * (PGlite) belongs to one process, so the admin CLI asks the running service instead of opening it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface AdminEndpoint {
  url: string;
  token: string;
  pid: number;
}

const FILE = 'admin.json';

export function newAdminToken(): string {
  return crypto.randomBytes(24).toString('base64url');
}

export function writeAdminEndpoint(dataDir: string, url: string, token: string): AdminEndpoint {
  const endpoint = { url, token, pid: process.pid };
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, FILE), JSON.stringify(endpoint), { mode: 0o600 });
  return endpoint;
}

/** The endpoint of a service that is still running on this data folder, or null. */
export function readLiveAdminEndpoint(dataDir: string): AdminEndpoint | null {
  let endpoint: AdminEndpoint;
  try {
    endpoint = JSON.parse(fs.readFileSync(path.join(dataDir, FILE), 'utf8')) as AdminEndpoint;
  } catch {
    return null;
  }
  try {
    process.kill(endpoint.pid, 0);
    return endpoint;
  } catch {
    return null;
  }
}
