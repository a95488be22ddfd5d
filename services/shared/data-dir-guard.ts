/**
 * Keeps simulated and real data apart: a data folder used by the demo carries simulator.json, and
 * the service refuses to ingest real upstream data into it (and the demo refuses a folder that
 * already holds data from another upstream).
 */
import fs from 'node:fs';
import path from 'node:path';

const SIMULATOR_MARKER = 'simulator.json';

export interface SimulatorMarker {
  seed: number;
  epoch_ms: number;
}

function readSimulatorMarker(dataDir: string): SimulatorMarker | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, SIMULATOR_MARKER), 'utf8')) as SimulatorMarker;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** For the demo: the folder's simulator identity, created on first use. */
export function claimForSimulator(dataDir: string, seed: number, nowMs: number): SimulatorMarker {
  const existing = readSimulatorMarker(dataDir);
  if (existing) return existing;
  if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
    throw new Error(`${dataDir} already holds data from another upstream; give the demo its own DATA_DIR`);
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const marker = { seed, epoch_ms: nowMs };
  fs.writeFileSync(path.join(dataDir, SIMULATOR_MARKER), JSON.stringify(marker));
  return marker;
}

/** For the real service: refuse a folder that holds simulator data when pointed at Polymarket. */
export function assertNotSimulatorData(dataDir: string, gammaUrl: string): void {
  if (readSimulatorMarker(dataDir) && /polymarket\.com/.test(gammaUrl)) {
    throw new Error(`${dataDir} holds simulator data (${SIMULATOR_MARKER}); run the demo on it, or give the real service another DATA_DIR`);
  }
}
