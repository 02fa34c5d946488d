/**
 * Where a build's pipeline definition came from (the pipeline's stored YAML, or a file of its
 * repository at a commit, linked on hosts whose pages Sluice knows) and the YAML it ran, read
 * once it is known.
 * @module
 */
import type { Build } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { shortRevision } from '../app/format.js';

export function DefinitionSource({
  buildId,
  definition,
}: {
  buildId: string;
  definition: Build['definition'];
}) {
  const api = useApi();
  const ran = usePoll(
    (signal) => api.call('getBuildDefinition', { params: { buildId }, signal }),
    // Read again only until the engine has read the repository's file (an old build keeps none).
    {
      intervalMs: 3000,
      key: `${buildId} ${definition.sha ?? ''}`,
      stop: (d) => d.yaml !== null || d.location === 'inline',
    },
  );
  const yaml = ran.data?.yaml ?? null;
  const shown =
    yaml === null ? null : (
      <details className="definition-yaml">
        <summary>The YAML it ran</summary>
        <pre className="mono">{yaml}</pre>
      </details>
    );
  if (definition.location === 'inline') return <>the pipeline&apos;s stored YAML{shown}</>;
  const file = definition.path ?? 'codefresh.yml';
  const fileUrl = ran.data?.fileUrl ?? null;
  return (
    <>
      <span className="mono">{file}</span> in {definition.repo ?? '?'}
      {definition.sha === null ? (
        <> (reading it at {definition.revision ?? 'the default branch'})</>
      ) : (
        <>
          {' '}
          at <span className="mono">{shortRevision(definition.sha)}</span>
          {fileUrl === null ? null : (
            <>
              {' '}
              (
              <a href={fileUrl} target="_blank" rel="noreferrer noopener">
                view on the host
              </a>
              )
            </>
          )}
        </>
      )}
      {shown}
    </>
  );
}
