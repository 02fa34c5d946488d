export { backoffDelay } from './backoff.js';
export type { BackoffPolicy } from './backoff.js';
export { processAlive } from './process-alive.js';
export { sleep } from './sleep.js';
export { npmLauncher, waitForStopSignal } from './stop-signal.js';
export type { StopSignalEnv } from './stop-signal.js';
