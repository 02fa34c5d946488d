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
  /**
   * A warning: the step names a version that is not there, and a step type declared with
   * `metadata.anyVersion` (a stand-in for Codefresh's marketplace step of that name) is used.
   */
  standIn: 'SLUICE_PIPELINE_STEP_TYPE_STAND_IN',
} as const;
