// Structured logs with pino: JSON to stderr, pretty-printed when stderr is a terminal. stdout stays clean.
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../core/config.ts';

export function createLogger(level: Config['logLevel']): Logger {
  const stream = process.stderr.isTTY
    ? pretty({ destination: 2, colorize: true, translateTime: 'SYS:HH:MM:ss.l' })
    : pino.destination({ fd: 2, sync: false });
  return pino({ level, base: { service: 'sandtrap' } }, stream);
}
