/**
 * The builds list, newest first and updating live: status, pipeline, branch, commit, trigger,
 * who started it and duration; filtered by pipeline, status and branch (kept in the address, so
 * a filtered list can be linked), a page at a time.
 * @module
 */
import { useState } from 'react';
import { BuildStatus } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { between, formatAgo, formatDuration, shortRevision } from '../app/format.js';
import { Link, navigate } from '../app/router.js';
import { Table } from '../app/table.js';
import { usePipelines } from '../pipelines/use-pipelines.js';
import { StatusBadge } from './status-badge.js';

const PAGE_SIZE = 25;

export function BuildsPage({ search }: { search: string }) {
  const api = useApi();
  const filters = new URLSearchParams(search);
  const pipelineId = filters.get('pipelineId') ?? '';
  const status = filters.get('status') ?? '';
  const branch = filters.get('branch') ?? '';
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const key = `${search}|${cursor ?? ''}`;
  const page = usePoll(
    (signal) =>
      api.call('listBuilds', {
        query: {
          limit: PAGE_SIZE,
          cursor,
          pipelineId: pipelineId || undefined,
          status: (status || undefined) as BuildStatus | undefined,
          branch: branch || undefined,
        },
        signal,
      }),
    { intervalMs: 2000, key },
  );
  const pipelines = usePipelines(api);

  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(name, value);
    else next.delete(name);
    setCursors([]);
    const query = next.toString();
    navigate(`/builds${query ? `?${query}` : ''}`, { replace: true });
  };

  return (
    <section>
      <header className="page-head">
        <h1>Builds</h1>
      </header>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label>
          Pipeline{' '}
          <select value={pipelineId} onChange={(e) => setFilter('pipelineId', e.target.value)}>
            <option value="">All</option>
            {(pipelines.data ?? []).flatMap(({ project, pipelines: list }) =>
              list.map((p) => (
                <option key={p.id} value={p.id}>
                  {project.name}/{p.name}
                </option>
              )),
            )}
          </select>
        </label>
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setFilter('status', e.target.value)}>
            <option value="">All</option>
            {BuildStatus.options.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Branch{' '}
          <input
            defaultValue={branch}
            key={branch}
            placeholder="any"
            onBlur={(e) => setFilter('branch', e.target.value.trim())}
            onKeyDown={(e) => {
              if (e.key === 'Enter') setFilter('branch', e.currentTarget.value.trim());
            }}
          />
        </label>
      </form>
      {page.error ? <ErrorNote error={page.error} /> : null}
      <Table
        className="builds"
        headers={[
          'Build',
          'Status',
          'Pipeline',
          'Branch',
          'Commit',
          'Trigger',
          'Duration',
          'Started',
        ]}
      >
        {(page.data?.items ?? []).map((build) => (
          <tr key={build.id} data-build={build.id}>
            <td>
              <Link href={`/builds/${build.id}`}>
                {build.pipeline} #{build.number}
              </Link>
            </td>
            <td>
              <StatusBadge status={build.status} />
            </td>
            <td>
              {build.project}/{build.pipeline}
            </td>
            <td>{build.branch ?? '—'}</td>
            <td className="mono">{shortRevision(build.revision)}</td>
            <td>
              {build.trigger}
              {build.initiatorName ? <span className="muted"> · {build.initiatorName}</span> : null}
            </td>
            <td className="num">
              {formatDuration(between(build.createdAt, build.finishedAt) ?? NaN)}
            </td>
            <td>{formatAgo(build.createdAt)}</td>
          </tr>
        ))}
      </Table>
      {page.data && page.data.items.length === 0 ? <p className="muted">No builds.</p> : null}
      <nav className="pager" aria-label="Pages">
        <button
          type="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors((c) => c.slice(0, -1))}
        >
          Newer
        </button>
        <span className="muted">Page {cursors.length + 1}</span>
        <button
          type="button"
          disabled={!page.data?.nextCursor}
          onClick={() => {
            const next = page.data?.nextCursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Older
        </button>
      </nav>
    </section>
  );
}
