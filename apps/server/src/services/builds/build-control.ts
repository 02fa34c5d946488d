/**
 * The one writer of `build_control`: the messages a build's engine reads on its control channel
 * (a cancel, the answers to its approvals). Each is announced on `CHANNELS.control` in the same
 * transaction, so the engine's long-poll wakes when it commits and no caller can forget to.
 * @module
 */
import type { Executor } from '@sluice/db';
import type { Signals } from '../pg-notify.js';
import { CHANNELS } from '../pg-notify.js';

/** An approval's answer: the steps it answers and who answered. */
export interface ControlAnswer {
  decision: 'approve' | 'deny';
  steps: readonly string[];
  actor: string;
}

/** Asks the build's engine to stop (a cancel, or a limit's stop). */
export async function sendCancel(signals: Signals, trx: Executor, buildId: string): Promise<void> {
  await trx.insertInto('build_control').values({ build_id: buildId, kind: 'cancel' }).execute();
  await signals.publish(trx, CHANNELS.control, buildId);
}

/** Tells the build's engine how its waiting steps were answered. */
export async function sendAnswers(
  signals: Signals,
  trx: Executor,
  buildId: string,
  answer: ControlAnswer,
): Promise<void> {
  const { decision, actor } = answer;
  await trx
    .insertInto('build_control')
    .values(answer.steps.map((step) => ({ build_id: buildId, kind: decision, step, actor })))
    .execute();
  await signals.publish(trx, CHANNELS.control, buildId);
}
