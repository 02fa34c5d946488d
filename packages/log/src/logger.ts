/**
 * The logging interface every component receives (never a global), backed by pino: JSON off a
 * TTY, constant messages with data in fields, child loggers per component and build, and
 * secret values redacted. A build's own output is not logging: see the engine's log sink.
 * @module
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger as PinoLogger } from 'pino';

export type LogFields = Record<string, unknown>;

export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug' | 'silent';

export interface CreateLoggerOptions {
  level?: LogLevel;
  /** Where JSON lines go; stderr by default, so a command's stdout stays its own. */
  destination?: NodeJS.WritableStream;
  /** Field names whose values are always replaced, in addition to the defaults. */
  redactPaths?: string[];
}

const DEFAULT_REDACT = [
  'token',
  '*.token',
  'password',
  '*.password',
  'secret',
  '*.secret',
  'authorization',
  'headers.authorization',
];

export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const base = pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      redact: { paths: [...DEFAULT_REDACT, ...(options.redactPaths ?? [])], censor: '[redacted]' },
    },
    (options.destination ?? process.stderr) as pino.DestinationStream,
  );
  return wrap(base);
}

function wrap(target: PinoLogger): Logger {
  return {
    error: (message, fields) => target.error(fields ?? {}, message),
    warn: (message, fields) => target.warn(fields ?? {}, message),
    info: (message, fields) => target.info(fields ?? {}, message),
    debug: (message, fields) => target.debug(fields ?? {}, message),
    child: (fields) => wrap(target.child(fields)),
  };
}

/** A logger that drops everything, for callers that were given none. */
export const silentLogger: Logger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child: () => silentLogger,
};

/**
 * A logger that keeps every JSON line it writes in `lines`, in order: for a test that reads what
 * was logged.
 */
export function memoryLogger(level: LogLevel = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level, destination }), lines };
}
