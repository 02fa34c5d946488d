/**
 * What a build reports while it runs. A sink receives these in order; step output lines are
 * already masked when they arrive. This is the build's data stream, not logging.
 * @module
 */
import type { AnnotationChange, BuildAnnotations } from '@sluice/protocol';

/** `timeout`: stopped at its `timeout`; `denied`: an approval step someone (or its timeout) denied. */
export type StepResult = 'success' | 'failure' | 'skipped' | 'terminated' | 'timeout' | 'denied';
export type BuildResult = 'success' | 'failure' | 'terminated' | 'error';

export type BuildEvent =
  | { type: 'build-started'; buildId: string; pipelineName: string; volumeName: string; at: number }
  | {
      /**
       * The build's volume is there: `reused` when an earlier build of its volume key left it
       * (a warm cache), with when it was made (Docker's time; undefined when Docker gives none).
       */
      type: 'volume-ready';
      volume: string;
      reused: boolean;
      createdAt: string | undefined;
      at: number;
    }
  | {
      type: 'step-started';
      step: string;
      title: string | undefined;
      /** The parallel block or step group the step runs in: its lane in the UI. */
      parent?: string;
      /** 1-based; above 1 when `retry` runs the step again. */
      attempt?: number;
      at: number;
    }
  | {
      /** A `pending-approval` step waits; the build is `pending-approval` until it is answered. */
      type: 'approval-requested';
      step: string;
      timeoutMs: number;
      finalState: 'approved' | 'denied';
      at: number;
    }
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
      /** A step's post-step operations set or unset annotations (already interpolated, masked). */
      type: 'annotations';
      step: string;
      changes: AnnotationChange[];
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
  /** The parallel block, group or hook the step ran in. */
  parent?: string;
  result: StepResult;
  /** How many times it ran, when `retry` allows more than one. */
  attempts?: number;
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
  /** What the steps' post-step operations set on the build and its images. */
  annotations: BuildAnnotations;
}
