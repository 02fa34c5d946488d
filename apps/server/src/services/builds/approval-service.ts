/**
 * Answers to pending-approval steps. The engine reports `approval-requested` (the step and the
 * build become `pending-approval`); a person approves or denies through the API; the answer goes
 * to the engine as a control message (`approve`/`deny` with the step and who), and the step
 * and the build run on. The engine applies the step's timeout itself and reports the outcome as
 * the step's result.
 * @module
 */
import { ConflictError } from '@sluice/errors';
import type { Build } from '@sluice/protocol';
import { loadBuild, lockBuildStatus } from './build-rows.js';
import type { BuildStore } from './build-store.js';
import { sendAnswers } from './build-control.js';
import { answerSteps } from './build-steps.js';
import { userName } from '../identity/user-name.js';
import type { ServerContext } from '../server-context.js';

export interface AnswerInput {
  accountId: string;
  buildId: string;
  decision: 'approve' | 'deny';
  /** One step; every step waiting for approval when undefined. */
  step?: string;
  /** The user id of who answered. */
  userId: string | undefined;
}

export class ApprovalService {
  readonly #ctx: ServerContext;
  readonly #store: BuildStore;

  constructor(ctx: ServerContext, store: BuildStore) {
    this.#ctx = ctx;
    this.#store = store;
  }

  async answer(input: AnswerInput): Promise<Build> {
    const { accountId, buildId } = input;
    await loadBuild(this.#ctx.database.db, accountId, buildId);
    const actor = await userName(this.#ctx.database.db, input.userId);
    const now = new Date(this.#ctx.clock());
    await this.#ctx.database.db.transaction().execute(async (trx) => {
      const status = await lockBuildStatus(trx, buildId);
      if (status !== 'pending-approval')
        throw new ConflictError(
          'SLUICE_BUILD_NOT_PENDING_APPROVAL',
          `Build ${buildId} is not waiting for approval (it is ${status})`,
          { hint: 'Only a build whose status is pending-approval can be approved or denied' },
        );
      const waiting = await trx
        .selectFrom('build_steps')
        .select('name')
        .where('build_id', '=', buildId)
        .where('status', '=', 'pending-approval')
        .orderBy('position')
        .execute();
      const steps = waiting
        .map((s) => s.name)
        .filter((n) => input.step === undefined || n === input.step);
      if (steps.length === 0)
        throw new ConflictError(
          'SLUICE_STEP_NOT_PENDING_APPROVAL',
          `Step "${input.step}" of build ${buildId} is not waiting for approval`,
          { hint: `Steps waiting: ${waiting.map((s) => s.name).join(', ')}` },
        );
      await sendAnswers(this.#ctx.signals, trx, buildId, {
        decision: input.decision,
        steps,
        actor,
      });
      await answerSteps(trx, buildId, { steps, actor });
      await this.#store.resumeWhenAnswered(trx, buildId, now);
    });
    this.#ctx.log.info('approval answered', { buildId, decision: input.decision, actor });
    return loadBuild(this.#ctx.database.db, accountId, buildId);
  }
}
