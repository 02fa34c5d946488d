/**
 * A build's steps on a time axis, in pipeline order, grouped by stage when the pipeline has
 * `stages:` (in their order; steps of no stage last): each step's lane (the parallel block or
 * typed step it runs in), its title, who approved or denied an approval step and when, its
 * attempt when `retry` ran it again, its status and duration. A step's name links to its log
 * section (`#step-<name>`).
 * @module
 */
import type { BuildStep } from '@sluice/protocol';
import { between, formatDuration } from '../app/format.js';
import { StatusBadge } from './status-badge.js';

export interface StageGroup {
  /** The stage's name; null for the steps of no stage (or of a stage the list lacks). */
  stage: string | null;
  steps: BuildStep[];
}

/**
 * `steps` in pipeline order, grouped by `stages` in their order (a stage with no step is left
 * out; by default the steps' stages as they first come); one group of every step when there is
 * no stage.
 */
export function stageGroups(steps: readonly BuildStep[], stages?: readonly string[]): StageGroup[] {
  const ordered = [...steps].sort((a, b) => a.position - b.position || a.attempt - b.attempt);
  stages ??= [...new Set(ordered.flatMap((s) => (s.stage === null ? [] : [s.stage])))];
  if (stages.length === 0) return [{ stage: null, steps: ordered }];
  const known = new Set(stages);
  const groups: StageGroup[] = stages.map((stage) => ({
    stage,
    steps: ordered.filter((s) => s.stage === stage),
  }));
  groups.push({
    stage: null,
    steps: ordered.filter((s) => s.stage === null || !known.has(s.stage)),
  });
  return groups.filter((g) => g.steps.length > 0);
}

export function StepTimeline({
  steps,
  stages,
  now = Date.now(),
}: {
  steps: readonly BuildStep[];
  /** The build's `stages`; by default the steps' stages in the order they first come. */
  stages?: readonly string[];
  now?: number;
}) {
  const groups = stageGroups(steps, stages);
  const ordered = groups.flatMap((g) => g.steps);
  const starts = ordered.flatMap((s) => (s.startedAt ? [Date.parse(s.startedAt)] : []));
  const origin = starts.length > 0 ? Math.min(...starts) : now;
  const ends = ordered.map((s) => (s.finishedAt ? Date.parse(s.finishedAt) : now));
  const span = Math.max(1, Math.max(origin, ...ends) - origin);
  if (ordered.length === 0) return <p className="muted">No step has started yet.</p>;
  return (
    // Long step and lane names scroll inside the table's box at phone width, not the page.
    <div className="table-wrap">
      <table className="timeline" aria-label="Steps">
        <thead>
          <tr>
            <th>Step</th>
            <th>Status</th>
            <th className="bar-cell">Timeline</th>
            <th className="num">Duration</th>
          </tr>
        </thead>
        {groups.map((group) => (
          <tbody key={group.stage ?? ''} data-stage={group.stage ?? undefined}>
            {groups.length > 1 || group.stage !== null ? (
              <tr className="stage-row">
                <th colSpan={4} scope="rowgroup">
                  {group.stage ?? 'No stage'}
                </th>
              </tr>
            ) : null}
            {group.steps.map((step) => (
              <StepRow
                key={`${step.name}#${step.attempt}`}
                step={step}
                origin={origin}
                span={span}
              />
            ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}

function StepRow({ step, origin, span }: { step: BuildStep; origin: number; span: number }) {
  const ms = between(step.startedAt, step.finishedAt);
  const left = step.startedAt ? Date.parse(step.startedAt) - origin : 0;
  return (
    <tr data-step={step.name}>
      <th scope="row" className={step.parent ? 'lane' : undefined}>
        {step.parent ? <span className="muted">{step.parent} › </span> : null}
        <a href={`#step-${step.name}`}>{step.name}</a>
        {step.attempt > 1 ? <span className="retry"> retry {step.attempt - 1}</span> : null}
        {step.title ? <div className="step-title small">{step.title}</div> : null}
        {step.answeredBy ? (
          <div className="muted small answer">
            {step.status === 'denied' ? 'Denied' : 'Approved'} by {step.answeredBy}
            {step.answeredAt ? ` at ${new Date(step.answeredAt).toLocaleString()}` : ''}
          </div>
        ) : null}
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
}
