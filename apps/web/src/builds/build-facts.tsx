/**
 * What ran and who: the build's branch, its commit (sha linked to the git host, message and
 * author), where its definition came from, who or what started it (a user's name, a webhook's
 * sender), its duration and runtime, its cache (hit or miss, volume, size, as the runtime
 * recorded it), the variables it ran with (its own and its pipeline's, secrets as `****`), and
 * why it ended.
 * @module
 */
import { formatBytes } from '@sluice/protocol';
import type { Build, Pipeline } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { between, formatDuration, shortRevision } from '../app/format.js';
import { Link } from '../app/router.js';
import { DefinitionSource } from './definition-source.js';

export function BuildFacts({ build }: { build: Build }) {
  return (
    <dl className="facts">
      <dt>Branch</dt>
      <dd>{build.branch ?? '—'}</dd>
      <dt>Commit</dt>
      <dd>
        <CommitFact build={build} />
      </dd>
      <dt>Definition</dt>
      <dd>
        <DefinitionSource buildId={build.id} definition={build.definition} />
      </dd>
      <dt>Trigger</dt>
      <dd>
        {build.trigger}
        {build.initiatorName ? ` by ${build.initiatorName}` : ''}
      </dd>
      <dt>Duration</dt>
      <dd>{formatDuration(between(build.createdAt, build.finishedAt) ?? NaN)}</dd>
      <dt>Runtime</dt>
      <dd>{build.runtimeEnvironment ?? '—'}</dd>
      <dt>Cache</dt>
      <dd data-testid="cache">{cacheText(build.cache)}</dd>
      <dt>Variables</dt>
      <dd>
        <Variables build={build} />
      </dd>
      {build.reason ? (
        <>
          <dt>Reason</dt>
          <dd>{build.reason}</dd>
        </>
      ) : null}
      {build.retryOf ? (
        <>
          <dt>Restart of</dt>
          <dd>
            <RestartOf build={build} retryOf={build.retryOf} />
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/** The build this one restarts, named as every build link is: its pipeline and number. */
function RestartOf({ build, retryOf }: { build: Build; retryOf: string }) {
  const api = useApi();
  const original = usePoll(
    (signal) => api.call('getBuild', { params: { buildId: retryOf }, signal }),
    { intervalMs: 60_000, key: retryOf, stop: () => true },
  );
  const number = original.data ? ` #${original.data.number}` : '';
  return (
    <Link href={`/builds/${retryOf}`}>
      {build.project}/{build.pipeline}
      {number}
    </Link>
  );
}

function CommitFact({ build }: { build: Build }) {
  const commit = build.commit;
  if (!commit) return <span className="mono">{shortRevision(build.revision)}</span>;
  const sha = shortRevision(commit.sha);
  const safeUrl = commit.url && /^https?:\/\//.test(commit.url) ? commit.url : null;
  return (
    <span className="commit">
      {safeUrl ? (
        <a className="mono" href={safeUrl} rel="noreferrer noopener" target="_blank">
          {sha}
        </a>
      ) : (
        <span className="mono">{sha}</span>
      )}
      {commit.message ? (
        <span className="commit-message"> {commit.message.split('\n')[0]}</span>
      ) : null}
      {commit.author ? <span className="muted"> by {commit.author}</span> : null}
    </span>
  );
}

/**
 * The build's own variables and secrets, then its pipeline's that they do not override (the
 * engine gives a step both, the build's winning). A pipeline keeps no history of its variables:
 * its are shown as they are now, and say so.
 */
function Variables({ build }: { build: Build }) {
  const api = useApi();
  const pipeline = usePoll(
    (signal) => api.call('getPipeline', { params: { pipelineId: build.pipelineId }, signal }),
    { intervalMs: 60_000, key: build.pipelineId, stop: () => true },
  );
  const rows = variableRows(build, pipeline.data?.variables ?? []);
  if (rows.length === 0) return <>{pipeline.data || pipeline.error ? 'none' : '…'}</>;
  return (
    <ul className="variables">
      {rows.map((row) => (
        <li key={row.name} className="mono" data-variable={row.name} data-from={row.from}>
          {row.name}={row.value ?? '****'}
          {row.from === 'pipeline' ? (
            <span className="muted small"> (pipeline&apos;s, as set now)</span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

interface VariableRow {
  name: string;
  /** Null for a secret. */
  value: string | null;
  from: 'build' | 'pipeline';
}

/** The build's variables and secrets by name, then its pipeline's it does not override. */
export function variableRows(
  build: Pick<Build, 'variables' | 'secretNames'>,
  pipeline: Pipeline['variables'],
): VariableRow[] {
  const own: VariableRow[] = [
    ...Object.entries(build.variables).map(([name, value]) => ({ name, value })),
    ...build.secretNames.map((name) => ({ name, value: null })),
  ].map((row) => ({ ...row, from: 'build' as const }));
  const named = new Set(own.map((row) => row.name));
  const inherited = pipeline
    .filter((v) => !named.has(v.name))
    .map((v) => ({ name: v.name, value: v.secret ? null : v.value, from: 'pipeline' as const }));
  const byName = (a: VariableRow, b: VariableRow) => a.name.localeCompare(b.name);
  return [...own.sort(byName), ...inherited.sort(byName)];
}

/** `hit · volume pvc-1 · 1.2 GB of 10Gi`, or why there is nothing to say. */
export function cacheText(cache: Build['cache']): string {
  if (!cache) return 'not recorded';
  const parts: string[] = [cache.outcome];
  if (cache.volume) parts.push(`volume ${cache.volume}`);
  if (cache.usedBytes !== null) {
    parts.push(`${formatBytes(cache.usedBytes)}${cache.capacity ? ` of ${cache.capacity}` : ''}`);
  } else if (cache.capacity) parts.push(cache.capacity);
  if (cache.mountCount !== null) parts.push(`used by ${cache.mountCount} builds`);
  return parts.join(' · ');
}
