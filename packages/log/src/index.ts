export { createLogger, memoryLogger, silentLogger } from './logger.js';
export type { Logger, LogFields, LogLevel, CreateLoggerOptions } from './logger.js';
