/**
 * Where a pipeline's definition lives, and switching it: stored here (YAML edited in the page,
 * checked as you type, never lost: yaml-edit-form.tsx) or read by each build from the repository (repository, path, revision and
 * git integration). Saving one replaces the other, as the API does.
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { Pipeline, SpecTemplate } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { useAction } from '../app/use-action.js';
import { YamlEditForm } from './yaml-edit-form.js';

type Source = 'stored' | 'repository';

export function DefinitionSection({
  pipeline,
  onSaved,
}: {
  pipeline: Pipeline;
  onSaved: () => void;
}) {
  const saved: Source = pipeline.specTemplate === null ? 'stored' : 'repository';
  const [source, setSource] = useState<Source>(saved);
  return (
    <>
      <h2>Definition</h2>
      <fieldset className="source-switch">
        <legend>Where it lives</legend>
        <label>
          <input
            type="radio"
            name="definition-source"
            checked={source === 'stored'}
            onChange={() => setSource('stored')}
          />{' '}
          Stored here
        </label>
        <label>
          <input
            type="radio"
            name="definition-source"
            checked={source === 'repository'}
            onChange={() => setSource('repository')}
          />{' '}
          In the repository, read by each build
        </label>
      </fieldset>
      {source === 'repository' && pipeline.specTemplate !== null ? (
        <p>
          Each build reads <span className="mono">{pipeline.specTemplate.path}</span> from{' '}
          <span className="mono">{pipeline.specTemplate.repo}</span> at{' '}
          {pipeline.specTemplate.revision ?? 'its own commit'}
          {pipeline.specTemplate.context === undefined
            ? ''
            : `, with git integration ${pipeline.specTemplate.context}`}
          . Change the file there, in the repository.
        </p>
      ) : null}
      {source !== saved ? (
        <p role="note" className="muted">
          Saving below replaces the {saved === 'stored' ? 'stored YAML' : 'repository source'}: the
          next build runs {source === 'stored' ? 'the YAML stored here' : "the repository's file"}.
        </p>
      ) : null}
      {source === 'stored' ? (
        <YamlEditForm pipeline={pipeline} switching={saved !== 'stored'} onSaved={onSaved} />
      ) : (
        <SourceForm
          key={pipeline.updatedAt}
          pipelineId={pipeline.id}
          current={pipeline.specTemplate}
          onSaved={onSaved}
        />
      )}
    </>
  );
}

interface SourceFormProps {
  pipelineId: string;
  current: SpecTemplate | null;
  onSaved: () => void;
}

/** The repository source's fields; empty optional ones are left out, as the CLI does. */
function SourceForm({ pipelineId, current, onSaved }: SourceFormProps) {
  const api = useApi();
  const action = useAction();
  const integrations = usePoll((signal) => api.call('listGitIntegrations', { signal }), {
    intervalMs: 60_000,
    key: 'git-integrations',
  });
  const [repo, setRepo] = useState(current?.repo ?? '');
  const [path, setPath] = useState(current?.path ?? 'codefresh.yml');
  const [revision, setRevision] = useState(current?.revision ?? '');
  const [context, setContext] = useState(current?.context ?? '');
  const [saved, setSaved] = useState(false);

  const save = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    const specTemplate: SpecTemplate = {
      location: 'git',
      repo: repo.trim(),
      path: path.trim() || 'codefresh.yml',
      ...(revision.trim() === '' ? {} : { revision: revision.trim() }),
      ...(context === '' ? {} : { context }),
    };
    return action.run(async () => {
      await api.call('updatePipeline', { params: { pipelineId }, body: { specTemplate } });
      setSaved(true);
      onSaved();
    });
  };

  return (
    <form className="grid-form" onSubmit={(e) => void save(e)} aria-label="Repository source">
      <label>
        Repository <span className="muted">(owner/name, or a clone URL)</span>
        <input value={repo} onChange={(e) => setRepo(e.target.value)} required />
      </label>
      <label>
        Path in it
        <input value={path} onChange={(e) => setPath(e.target.value)} />
      </label>
      <label>
        Revision <span className="muted">(empty: each build&apos;s own commit or branch)</span>
        <input value={revision} onChange={(e) => setRevision(e.target.value)} placeholder="" />
      </label>
      <label>
        Git integration
        <select value={context} onChange={(e) => setContext(e.target.value)}>
          <option value="">the account&apos;s default</option>
          {(integrations.data?.items ?? []).map((i) => (
            <option key={i.name} value={i.name}>
              {i.name} ({i.kind})
            </option>
          ))}
        </select>
      </label>
      <div>
        <button type="submit">Save</button> {saved ? <span role="status">Saved.</span> : null}
      </div>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </form>
  );
}
