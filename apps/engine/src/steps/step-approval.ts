/**
 * A `pending-approval` step: the build waits, holding no container, until the gate answers
 * (terminal, `--approve`/`--deny`, or the control plane), the step's timeout applies its
 * `finalState`, or the build is cancelled. Denied is the step result `denied`, a failure.
 * @module
 */
import type { ApprovalStep } from '@sluice/pipeline';
import type { ApprovalAnswer, ApprovalGate } from '../base/approval-gate.js';
import type { StepOutcome, StepRuntime } from '../base/step-runtime.js';
import { formatDuration } from '../base/durations.js';
import { emitLine } from '../containers/container-run.js';

export async function runApproval(
  step: ApprovalStep,
  runtime: StepRuntime,
  gate: ApprovalGate | undefined,
): Promise<StepOutcome> {
  const say = (line: string) => emitLine(runtime, step.name, 'system', line);
  if (gate === undefined)
    return {
      result: 'denied',
      reason: 'Nobody can answer this approval here: run with --approve or --deny',
    };
  runtime.emit({
    type: 'approval-requested',
    step: step.name,
    timeoutMs: step.timeoutMs,
    finalState: step.finalState,
    at: runtime.clock(),
  });
  say(
    `Waiting for approval (after ${formatDuration(step.timeoutMs)} without an answer: ${step.finalState})`,
  );
  const waiting = new AbortController();
  const stop = runtime.signal ? AbortSignal.any([runtime.signal, waiting.signal]) : waiting.signal;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), step.timeoutMs);
  });
  const cancelled = new Promise<'cancelled'>((resolve) => {
    if (stop.aborted) resolve('cancelled');
    stop.addEventListener('abort', () => resolve('cancelled'), { once: true });
  });
  try {
    const answer: ApprovalAnswer | 'timeout' | 'cancelled' = await Promise.race([
      gate(
        {
          step: step.name,
          title: step.title,
          timeoutMs: step.timeoutMs,
          finalState: step.finalState,
        },
        stop,
      ),
      timedOut,
      cancelled,
    ]);
    if (answer === 'cancelled')
      return { result: 'terminated', reason: 'The build was cancelled while waiting for approval' };
    if (answer === 'timeout') {
      const reason = `Nobody answered within ${formatDuration(step.timeoutMs)}; the step's final state is ${step.finalState}`;
      if (step.finalState === 'denied') return { result: 'denied', reason };
      say(reason);
      return { result: 'success' };
    }
    const by = answer.by ? ` by ${answer.by}` : '';
    if (answer.decision === 'approved') {
      say(`Approved${by}`);
      return { result: 'success' };
    }
    return { result: 'denied', reason: `Denied${by}` };
  } finally {
    clearTimeout(timer);
    waiting.abort();
  }
}
