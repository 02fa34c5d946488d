export { backoffDelay } from './backoff.js';
export type { BackoffPolicy } from './backoff.js';
export { processAlive } from './process-alive.js';
export { sleep } from './sleep.js';
