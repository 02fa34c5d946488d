/**
 * What a build reports while it runs. A sink receives these in order; step output lines are
 * already masked when they arrive. This is the build's data stream, not logging.
 * @module
 */

export type StepResult = 'success' | 'failure' | 'skipped' | 'terminated';
export type BuildResult = 'success' | 'failure' | 'terminated' | 'error';

export type BuildEvent =
  | { type: 'build-started'; buildId: string; pipelineName: string; volumeName: string; at: number }
  | { type: 'step-started'; step: string; title: string | undefined; at: number }
  | {
      type: 'step-log';
      step: string;
      stream: 'stdout' | 'stderr' | 'system';
      line: string;
      at: number;
    }
  | {
      type: 'step-finished';
      step: string;
      result: StepResult;
      exitCode?: number;
      reason?: string;
      durationMs: number;
      at: number;
    }
  | {
      type: 'build-finished';
      result: BuildResult;
      reason?: string;
      durationMs: number;
      at: number;
    };

export type BuildEventSink = (event: BuildEvent) => void;

export interface StepSummary {
  name: string;
  title: string | undefined;
  result: StepResult;
  exitCode?: number;
  reason?: string;
  durationMs: number;
}

export interface BuildSummary {
  buildId: string;
  result: BuildResult;
  reason?: string;
  steps: StepSummary[];
  durationMs: number;
  /** Variables exported with cf_export, masked ones excluded. */
  exported: Record<string, string>;
}
