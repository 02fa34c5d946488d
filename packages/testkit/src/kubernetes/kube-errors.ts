/**
 * The coded errors of the Kubernetes test kit. Every setup failure names the step that failed
 * and the log to read, so a red test says what to fix without a rerun (docs/errors.md).
 * @module
 */
import { InternalError, UnavailableError } from '@sluice/errors';
import { readTail } from '../run-command.js';

export const KUBE_BUILD_FAILED = 'SLUICE_TEST_KUBE_BUILD_FAILED';
export const KUBE_UNAVAILABLE = 'SLUICE_TEST_KUBE_UNAVAILABLE';
export const KUBE_IMAGES_UNAVAILABLE = 'SLUICE_TEST_KUBE_IMAGES_UNAVAILABLE';
export const KUBE_TEARDOWN_FAILED = 'SLUICE_TEST_KUBE_TEARDOWN_FAILED';
export const KUBE_NOT_STARTED = 'SLUICE_TEST_KUBE_NOT_STARTED';
export const KUBE_SHARED_UNREADABLE = 'SLUICE_TEST_KUBE_SHARED_UNREADABLE';
export const KUBE_SHARED_NOT_STOPPABLE = 'SLUICE_TEST_KUBE_SHARED_NOT_STOPPABLE';

export interface StepFailureOptions {
  /** The log that holds the step's output; its tail goes into the details. */
  logPath?: string;
  /** What to do next; defaults to "read the log". */
  hint?: string;
  /** Output already captured (when there is no log file). */
  output?: string;
  cause?: unknown;
}

/** A setup step failed: `what` is the thing being set up, `step` the step that failed. */
export function stepFailed(
  code: typeof KUBE_BUILD_FAILED | typeof KUBE_UNAVAILABLE | typeof KUBE_IMAGES_UNAVAILABLE,
  what: string,
  step: string,
  options: StepFailureOptions = {},
): UnavailableError {
  const { logPath } = options;
  const where = logPath === undefined ? '' : ` (log: ${logPath})`;
  const logTail = logPath === undefined ? undefined : readTail(logPath);
  return new UnavailableError(code, `${what} failed at step "${step}"${where}`, {
    cause: options.cause,
    details: { step, logPath, logTail, output: options.output },
    hint: options.hint ?? (logPath === undefined ? `rerun the step: ${step}` : `read ${logPath}`),
  });
}

/** A test asked for the cluster outside the before/after hooks that own it: our bug. */
export function notStarted(): InternalError {
  return new InternalError(
    KUBE_NOT_STARTED,
    'The Kubernetes test cluster is not running: it is started in before() and stopped in after()',
    { hint: 'call the accessor returned by useKubernetes() inside a test, not at module level' },
  );
}
