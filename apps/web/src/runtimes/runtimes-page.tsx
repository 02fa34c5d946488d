/**
 * Runtime environments: the list with the account default marked, and one environment's page
 * (its spec as YAML, edited and saved as a merge patch; set as default; its history with a diff
 * of any earlier version against the latest).
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { parse, stringify } from 'yaml';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { formatAgo } from '../app/format.js';
import { Link } from '../app/router.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';
import { diffLines, mergePatch } from './spec-diff.js';

export function RuntimesPage() {
  const api = useApi();
  const list = usePoll((signal) => api.call('listRuntimeEnvironments', { signal }), {
    intervalMs: 5000,
    key: 'runtimes',
  });
  return (
    <section>
      <h1>Runtime environments</h1>
      {list.error ? <ErrorNote error={list.error} /> : null}
      <Table headers={['Name', 'Default', 'Version', 'Description', 'Changed']}>
        {(list.data?.items ?? []).map((re) => (
          <tr key={re.name}>
            <td>
              <Link href={`/runtimes/${encodeURIComponent(re.name)}`}>{re.name}</Link>
            </td>
            <td>{re.isDefault ? <span className="badge status-success">default</span> : ''}</td>
            <td className="num">{re.version}</td>
            <td>{re.description ?? ''}</td>
            <td>{formatAgo(re.createdAt)}</td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

export function RuntimePage({ name }: { name: string }) {
  const api = useApi();
  const params = { name };
  const current = usePoll((signal) => api.call('getRuntimeEnvironment', { params, signal }), {
    intervalMs: 5000,
    key: `re:${name}`,
  });
  const history = usePoll((signal) => api.call('runtimeEnvironmentHistory', { params, signal }), {
    intervalMs: 5000,
    key: `history:${name}`,
  });
  const action = useAction();
  const re = current.data;
  if (!re) return current.error ? <ErrorNote error={current.error} /> : <p>Loading…</p>;

  const setDefault = () =>
    action.run(async () => {
      await api.call('setDefaultRuntimeEnvironment', { params });
      current.reload();
    });
  const reload = () => {
    current.reload();
    history.reload();
  };

  return (
    <article>
      <header className="page-head">
        <h1>{re.name}</h1>
        {re.isDefault ? <span className="badge status-success">default</span> : null}
        <span className="muted">version {re.version}</span>
        <div className="actions">
          {re.isDefault ? null : (
            <button type="button" onClick={() => void setDefault()}>
              Set as default
            </button>
          )}
        </div>
      </header>
      {action.error ? <ErrorNote error={action.error} /> : null}
      <h2>Spec</h2>
      <SpecEditor key={re.version} name={re.name} spec={re.spec} onSaved={reload} />
      <h2>History</h2>
      <HistoryDiff
        latest={re.spec}
        versions={(history.data?.items ?? []).filter((v) => v.version !== re.version)}
      />
    </article>
  );
}

type Spec = Record<string, unknown>;

function SpecEditor(props: { name: string; spec: Spec; onSaved: () => void }) {
  const api = useApi();
  const [text, setText] = useState(() => stringify(props.spec));
  const action = useAction();
  const save = (event: FormEvent) => {
    event.preventDefault();
    return action.run(async () => {
      const next: unknown = parse(text);
      if (typeof next !== 'object' || next === null || Array.isArray(next))
        throw new Error('The spec must be a YAML mapping');
      const patch = mergePatch(props.spec as never, next as never);
      await api.call('patchRuntimeEnvironment', { params: { name: props.name }, body: { patch } });
      props.onSaved();
    });
  };
  return (
    <form className="grid-form" onSubmit={(e) => void save(e)} aria-label="Edit spec">
      <textarea
        aria-label="Spec YAML"
        className="mono"
        spellCheck={false}
        rows={Math.max(10, text.split('\n').length + 1)}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <div>
        <button type="submit" className="primary" disabled={text === stringify(props.spec)}>
          Save
        </button>
      </div>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </form>
  );
}

function HistoryDiff({
  latest,
  versions,
}: {
  latest: Spec;
  versions: { version: number; spec: Spec; createdAt: string; createdBy: string | null }[];
}) {
  const [picked, setPicked] = useState<number | undefined>();
  const chosen = versions.find((v) => v.version === picked) ?? versions[0];
  if (!chosen) return <p className="muted">No earlier version.</p>;
  return (
    <div>
      <label>
        Compare version{' '}
        <select value={chosen.version} onChange={(e) => setPicked(Number(e.target.value))}>
          {versions.map((v) => (
            <option key={v.version} value={v.version}>
              {v.version} · {formatAgo(v.createdAt)}
              {v.createdBy ? ` by ${v.createdBy}` : ''}
            </option>
          ))}
        </select>{' '}
        with the latest
      </label>
      <pre className="diff" aria-label="Diff">
        {diffLines(stringify(chosen.spec), stringify(latest)).map((line, i) => (
          <div key={i} className={line.kind}>
            {line.kind === 'add' ? '+ ' : line.kind === 'del' ? '- ' : '  '}
            {line.text}
          </div>
        ))}
      </pre>
    </div>
  );
}
