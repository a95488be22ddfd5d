/**
 * Where a running demo's simulator serves its truth (routes-truth.ts): the demo writes it into its data
 * folder so `npm run verify --data-dir <dir>` finds it without reading any log. The file is only
 * written by the demo (the simulator is never part of a production service).
 */
import fs from 'node:fs';
import path from 'node:path';

const TRUTH_ENDPOINT_FILE = 'simulator-truth.json';

export interface TruthEndpoint {
  /** e.g. http://127.0.0.1:41234/truth */
  truth_url: string;
  pid: number;
}

export function writeTruthEndpoint(dataDir: string, truthUrl: string): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const endpoint: TruthEndpoint = { truth_url: truthUrl, pid: process.pid };
  fs.writeFileSync(path.join(dataDir, TRUTH_ENDPOINT_FILE), JSON.stringify(endpoint));
}

/** The truth URL a demo on this data folder wrote, or null (no demo ran there). */
export function readTruthEndpoint(dataDir: string): TruthEndpoint | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, TRUTH_ENDPOINT_FILE), 'utf8')) as TruthEndpoint;
  } catch {
    return null;
  }
}
