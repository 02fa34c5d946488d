/**
 * One pipeline: run it (branch and variables), its definition (stored YAML checked as you type,
 * or its repository: definition-section.tsx), its triggers and its variables (secrets shown as
 * set, never their value); deleted with its builds and logs once the page has said what goes.
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { DeleteData } from '../app/delete-data.js';
import { ErrorNote, PageError } from '../app/error-note.js';
import { Link, navigate } from '../app/router.js';
import { useAction } from '../app/use-action.js';
import { DefinitionSection } from './definition-section.js';
import { Triggers } from './triggers.js';

export function PipelinePage({ pipelineId }: { pipelineId: string }) {
  const api = useApi();
  const polled = usePoll((signal) => api.call('getPipeline', { params: { pipelineId }, signal }), {
    intervalMs: 15_000,
    key: pipelineId,
  });
  const pipeline = polled.data;
  if (!pipeline) return polled.error ? <PageError error={polled.error} /> : <p>Loading…</p>;
  return (
    <article>
      <header className="page-head">
        <h1>
          {pipeline.project}/{pipeline.name}
        </h1>
        <div className="actions">
          <Link href={`/builds?pipelineId=${pipeline.id}`}>Builds</Link>
          <DeleteData
            subject={`pipeline ${pipeline.project}/${pipeline.name}`}
            call={(dryRun) =>
              api.call('deletePipeline', { params: { pipelineId }, query: { dryRun } })
            }
            onDeleted={() => navigate('/pipelines')}
          />
        </div>
      </header>
      <RunForm pipelineId={pipeline.id} />
      <DefinitionSection pipeline={pipeline} onSaved={polled.reload} />
      <h2>Triggers</h2>
      <Triggers pipelineId={pipeline.id} />
      <h2>Variables</h2>
      <VariableForm pipelineId={pipeline.id} onSaved={polled.reload} />
      {pipeline.variables.length === 0 ? <p className="muted">None.</p> : null}
      <dl className="facts">
        {pipeline.variables.map((v) => (
          <div key={v.name} style={{ display: 'contents' }}>
            <dt className="mono">{v.name}</dt>
            <dd className="mono">{v.secret ? '•••••• (secret)' : v.value}</dd>
          </div>
        ))}
      </dl>
    </article>
  );
}

function RunForm({ pipelineId }: { pipelineId: string }) {
  const api = useApi();
  const [branch, setBranch] = useState('');
  const [variables, setVariables] = useState('');
  const action = useAction();

  const run = (event: FormEvent) => {
    event.preventDefault();
    return action.run(async () => {
      const build = await api.call('createBuild', {
        params: { pipelineId },
        body: { branch: branch.trim() || undefined, variables: parseVariables(variables) },
      });
      navigate(`/builds/${build.id}`);
    });
  };

  return (
    <form className="grid-form" onSubmit={(e) => void run(e)} aria-label="Run">
      <label>
        Branch{' '}
        <input value={branch} onChange={(e) => setBranch(e.target.value)} placeholder="main" />
      </label>
      <label>
        Variables, one <code>NAME=value</code> a line
        <textarea value={variables} onChange={(e) => setVariables(e.target.value)} rows={3} />
      </label>
      <div>
        <button type="submit" className="primary">
          Run
        </button>
      </div>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </form>
  );
}

/** Sets a variable or a secret: a secret's value is sent once and never shown again. */
function VariableForm({ pipelineId, onSaved }: { pipelineId: string; onSaved: () => void }) {
  const api = useApi();
  const action = useAction();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [secret, setSecret] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    return action.run(async () => {
      await api.call('setVariable', {
        params: { pipelineId, name },
        body: { value, secret },
      });
      setName('');
      setValue('');
      onSaved();
    });
  };
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label="Set a variable">
      <label>
        Name <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <label>
        Value{' '}
        <input
          type={secret ? 'password' : 'text'}
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
      </label>
      <label>
        <input type="checkbox" checked={secret} onChange={(e) => setSecret(e.target.checked)} />{' '}
        Secret (write-only)
      </label>
      <button type="submit">Set</button>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </form>
  );
}

/** `NAME=value` lines (blank lines skipped) → variables; the server checks the names. */
export function parseVariables(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const at = line.indexOf('=');
    if (at === -1) variables[line.trim()] = '';
    else variables[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return variables;
}
