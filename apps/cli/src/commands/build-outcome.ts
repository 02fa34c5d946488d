/**
 * A finished build as an exit code, for `run-pipeline`, `logs -f` and `restart -f`: scripts
 * tell a failing pipeline from a cancelled, denied or errored build without parsing output.
 * The table is documented in docs/cli.md and docs/errors.md.
 * @module
 */
import type { Build } from '@sluice/protocol';

export const BUILD_EXIT_CODES = {
  success: 0,
  /** A step failed (or timed out). */
  failure: 1,
  /** Cancelled (`sluice cancel`, the API or the UI), or stopped by the runner. */
  terminated: 3,
  /** A pending-approval step was denied, or its approval timed out as denied. */
  denied: 4,
  /** The build could not run: its runtime, its engine or the pipeline failed it. */
  error: 5,
} as const;

export type BuildOutcome = keyof typeof BUILD_EXIT_CODES;

export function buildOutcome(build: Pick<Build, 'status' | 'steps'>): BuildOutcome {
  switch (build.status) {
    case 'success':
      return 'success';
    case 'failure':
      return build.steps.some((s) => s.status === 'denied') ? 'denied' : 'failure';
    case 'terminated':
      return 'terminated';
    case 'error':
      return 'error';
    case 'pending':
    case 'elected':
    case 'running':
    case 'pending-approval':
      // Only a finished build has an outcome; callers wait for the end first.
      return 'error';
  }
}
