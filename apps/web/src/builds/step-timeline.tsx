/**
 * A build's steps on a time axis, in pipeline order: each step's lane (the parallel block or
 * typed step it runs in), its attempt when `retry` ran it again, its status and duration.
 * @module
 */
import type { BuildStep } from '@sluice/protocol';
import { between, formatDuration } from '../app/format.js';
import { StatusBadge } from './status-badge.js';

export function StepTimeline({
  steps,
  now = Date.now(),
}: {
  steps: readonly BuildStep[];
  now?: number;
}) {
  const ordered = [...steps].sort((a, b) => a.position - b.position || a.attempt - b.attempt);
  const starts = ordered.flatMap((s) => (s.startedAt ? [Date.parse(s.startedAt)] : []));
  const origin = starts.length > 0 ? Math.min(...starts) : now;
  const ends = ordered.map((s) => (s.finishedAt ? Date.parse(s.finishedAt) : now));
  const span = Math.max(1, Math.max(origin, ...ends) - origin);
  if (ordered.length === 0) return <p className="muted">No step has started yet.</p>;
  return (
    <table className="timeline" aria-label="Steps">
      <thead>
        <tr>
          <th>Step</th>
          <th>Status</th>
          <th className="bar-cell">Timeline</th>
          <th className="num">Duration</th>
        </tr>
      </thead>
      <tbody>
        {ordered.map((step) => {
          const ms = between(step.startedAt, step.finishedAt);
          const left = step.startedAt ? Date.parse(step.startedAt) - origin : 0;
          return (
            <tr key={`${step.name}#${step.attempt}`} data-step={step.name}>
              <th scope="row" className={step.parent ? 'lane' : undefined}>
                {step.parent ? <span className="muted">{step.parent} › </span> : null}
                {step.name}
                {step.attempt > 1 ? <span className="retry"> retry {step.attempt - 1}</span> : null}
                {step.reason ? <div className="muted small">{step.reason}</div> : null}
              </th>
              <td>
                <StatusBadge status={step.status} />
              </td>
              <td className="bar-cell">
                {ms !== undefined ? (
                  <span
                    className={`bar status-${step.status}`}
                    style={{
                      marginLeft: `${(left / span) * 100}%`,
                      width: `max(2px, ${(ms / span) * 100}%)`,
                    }}
                  />
                ) : null}
              </td>
              <td className="num">{ms !== undefined ? formatDuration(ms) : '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
