/**
 * An error as the API gave it: the message, and the code and hint when there are any; a page
 * that could not load shows it under a heading (`PageError`).
 * @module
 */
import { NotFoundError, SluiceError } from '@sluice/errors';

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

/**
 * A page whose data could not be loaded: a heading saying so (the page's title follows it),
 * then the API's words (`Build bld_… does not exist`).
 */
export function PageError({ error }: { error: Error }) {
  return (
    <section>
      <h1>{error instanceof NotFoundError ? 'Not found' : 'Could not load this page'}</h1>
      <ErrorNote error={error} />
    </section>
  );
}
