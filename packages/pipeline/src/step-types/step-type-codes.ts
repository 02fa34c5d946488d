/**
 * Issue codes that only typed steps produce. Problems that read like any other field's (a wrong
 * type, a missing or unknown field) use the general `ISSUE_CODES` instead.
 * @module
 */

export const STEP_TYPE_ISSUE_CODES = {
  /** A warning: the step names no version, so the newest was used. */
  unpinned: 'SLUICE_PIPELINE_STEP_TYPE_UNPINNED',
  /** The step-type document the step names is broken; the message points into it. */
  invalid: 'SLUICE_PIPELINE_STEP_TYPE_INVALID',
} as const;
