import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** JSON logs for machines; pino-pretty when a person is watching a terminal. */
export function createLogger(config: Pick<Config, 'logLevel' | 'logPretty'>, name = 'tapeline'): Logger {
  return pino({
    name,
    level: config.logLevel,
    ...(config.logPretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } } : {}),
  });
}
