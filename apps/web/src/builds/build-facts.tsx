/**
 * What ran and who: the build's branch, its commit (sha linked to the git host, message and
 * author), where its definition came from, who or what started it (a user's name, a webhook's
 * sender), its duration and runtime, its cache (hit or miss, volume, size, as the runtime
 * recorded it), the variables it ran with (secrets as `****`), and why it ended.
 * @module
 */
import type { Build } from '@sluice/protocol';
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
            <Link href={`/builds/${build.retryOf}`}>{build.retryOf}</Link>
          </dd>
        </>
      ) : null}
    </dl>
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

function Variables({ build }: { build: Build }) {
  const plain = Object.entries(build.variables).sort(([a], [b]) => a.localeCompare(b));
  if (plain.length === 0 && build.secretNames.length === 0) return <>none</>;
  return (
    <ul className="variables">
      {plain.map(([name, value]) => (
        <li key={name} className="mono">
          {name}={value}
        </li>
      ))}
      {build.secretNames.map((name) => (
        <li key={name} className="mono">
          {name}=****
        </li>
      ))}
    </ul>
  );
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

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
