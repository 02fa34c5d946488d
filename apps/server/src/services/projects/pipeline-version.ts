/**
 * Saving a pipeline only over the version the change was based on (`ifUpdatedAt`): a change
 * based on an older version would silently undo what someone saved meanwhile (the web
 * editor's lost edits), so it is refused with 409 and the current pipeline, for the caller to
 * show both. The row is locked until the transaction ends, so two saves of one version cannot
 * both pass.
 * @module
 */
import { ConflictError } from '@sluice/errors';
import type { Executor } from '@sluice/db';
import type { Pipeline } from '@sluice/protocol';
import { isoTime } from '../server-context.js';

export interface AssertUnchangedOptions {
  pipelineId: string;
  /** The `updatedAt` the change is based on. */
  base: string;
  /** The pipeline as it is now, read through the same transaction (its row is locked). */
  current: () => Promise<Pipeline>;
}

export async function assertUnchanged(trx: Executor, options: AssertUnchangedOptions) {
  const row = await trx
    .selectFrom('pipelines')
    .select('updated_at')
    .where('id', '=', options.pipelineId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (isoTime(row.updated_at) === options.base) return;
  const current = await options.current();
  throw new ConflictError(
    'SLUICE_PIPELINE_CHANGED',
    `Pipeline ${current.project}/${current.name} changed since ${options.base} (now ${current.updatedAt})`,
    {
      hint: 'Merge your change into the current version (in details.current) and save it again',
      details: { current },
    },
  );
}
