/**
 * `npm run service -- <part> [<part>...]`: runs the named parts of tapeline in this process, on the
 * engines the environment selects (KAFKA_BROKERS + SCHEMA_REGISTRY_URL, CLICKHOUSE_URL,
 * DATABASE_URL; embedded twins under DATA_DIR otherwise). Parts: see services/parts/registry.ts.
 */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { findPart, PARTS, startParts } from './parts/registry.js';
import { PartResources } from './parts/resources.js';
import { startUntilSignal } from './stack.js';

const names = process.argv.slice(2);
const unknown = names.filter((name) => !findPart(name));
if (names.length === 0 || unknown.length > 0) {
  console.error(`${unknown.length ? `unknown part(s): ${unknown.join(', ')}\n` : ''}usage: npm run service -- <part> [<part>...]`);
  for (const part of PARTS) console.error(`  ${part.name.padEnd(10)} ${part.description}`);
  process.exit(2);
}

try {
  const config = loadConfig();
  const logger = createLogger(config);
  await startUntilSignal(async (signal) => {
    const parts = await startParts(names, new PartResources(config, logger), signal);
    logger.info({ parts: names }, 'parts started');
    return parts;
  }, logger);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
