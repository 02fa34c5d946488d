/**
 * Deleting what has run (a pipeline, a project) from its page, as `sluice delete` does: the
 * button first asks the server what would go (a dry run: builds, log chunks and bytes) and shows
 * it beside the question; only "Yes, delete" deletes. A refusal (a build not finished: 409 with
 * the cancel to run) shows beside the button, and nothing is deleted.
 * @module
 */
import { useState } from 'react';
import { describeDeleted } from '@sluice/protocol';
import type { DeletedData } from '@sluice/protocol';
import { ErrorNote } from './error-note.js';
import { useAction } from './use-action.js';

export interface DeleteDataProps {
  /** What goes, as the question names it: `pipeline web/api`, `project web`. */
  subject: string;
  /** The delete: `'true'` only counts what would go, `'false'` deletes it. */
  call: (dryRun: 'true' | 'false') => Promise<DeletedData>;
  /** After the delete, with what went. */
  onDeleted: (deleted: DeletedData) => void;
}

export function DeleteData({ subject, call, onDeleted }: DeleteDataProps) {
  const action = useAction();
  const [plan, setPlan] = useState<DeletedData | undefined>();
  const ask = () => action.run(async () => setPlan(await call('true')));
  const remove = () =>
    action.run(async () => {
      const deleted = await call('false');
      setPlan(undefined);
      onDeleted(deleted);
    });
  const what = plan === undefined ? '' : describeDeleted(plan);
  return (
    <div className="delete-data">
      {plan === undefined ? (
        <button
          type="button"
          className="danger"
          aria-label={`Delete ${subject}`}
          disabled={action.pending}
          onClick={() => void ask()}
        >
          Delete
        </button>
      ) : (
        <div role="group" aria-label={`Confirm deleting ${subject}`} className="confirm">
          <span className="small">
            Delete {subject}
            {what === '' ? '' : ` with ${what}`}? It cannot be undone.
          </span>
          <button
            type="button"
            className="danger"
            disabled={action.pending}
            onClick={() => void remove()}
          >
            Yes, delete
          </button>
          <button
            type="button"
            autoFocus
            disabled={action.pending}
            onClick={() => setPlan(undefined)}
          >
            Keep
          </button>
        </div>
      )}
      {action.error ? <ErrorNote error={action.error} /> : null}
    </div>
  );
}
