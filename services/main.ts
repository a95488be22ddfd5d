/** `npm start`: the whole service in one process, against Polymarket's public APIs unless told otherwise. */
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startStack, startUntilSignal } from './stack.js';

try {
  const config = loadConfig();
  const logger = createLogger(config);
  await startUntilSignal((signal) => startStack(config, logger, signal), logger);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
