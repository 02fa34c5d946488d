/**
 * An error as the API gave it: the message, and the code and hint when there are any.
 * @module
 */
import { SluiceError } from '@sluice/errors';

export function ErrorNote({ error }: { error: Error }) {
  const coded = error instanceof SluiceError ? error : undefined;
  return (
    <div className="error-note" role="alert">
      {error.message}
      {coded ? <span className="muted"> ({coded.code})</span> : null}
      {coded?.hint ? <div className="muted">{coded.hint}</div> : null}
    </div>
  );
}
