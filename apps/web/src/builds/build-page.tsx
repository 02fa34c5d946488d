/**
 * One build: its summary, the actions its status allows (cancel, restart, approve, deny), the
 * annotations its steps set, the step timeline, the timing waterfall, cache information and the
 * live log. Polled until it finishes, so the final state shows without a reload.
 * @module
 */
import { useCallback, useRef, useState } from 'react';
import { FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, BuildStep, StepStatus } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { takeEarlyBuild } from '../api/early-requests.js';
import { usePoll } from '../api/use-poll.js';
import { Link, navigate } from '../app/router.js';
import { ErrorNote, PageError } from '../app/error-note.js';
import { useAction } from '../app/use-action.js';
import { LogPanel } from '../logs/log-panel.js';
import { useLogSource } from '../logs/log-stream.js';
import { AnnotationList } from './annotation-list.js';
import { BuildFacts } from './build-facts.js';
import { PipelineGraphView } from './pipeline-graph-view.js';
import { StatusBadge } from './status-badge.js';
import { StepTimeline } from './step-timeline.js';
import { Waterfall } from './waterfall.js';

export function BuildPage({ buildId }: { buildId: string }) {
  const api = useApi();
  // The log is asked for with the build, not after it: its first lines come a round trip sooner.
  const log = useLogSource(api, buildId);
  const polled = usePoll(
    async (signal) =>
      (await takeEarlyBuild(buildId)) ?? api.call('getBuild', { params: { buildId }, signal }),
    {
      intervalMs: 1500,
      key: buildId,
      stop: (build) => FINISHED_STATUSES.includes(build.status),
    },
  );
  const action = useAction();
  // Sent once: the build runs on until its engine stops, and the button says so meanwhile.
  const [cancelling, setCancelling] = useState(false);
  // Lines mean the engine runs: a page still showing the build waiting asks again at once (at
  // most twice a second) instead of up to a poll's interval behind its own log.
  const { reload } = polled;
  const shownStatus = polled.data?.status;
  const lastAsked = useRef(0);
  const onLines = useCallback(() => {
    if (shownStatus !== 'pending' && shownStatus !== 'elected') return;
    if (Date.now() - lastAsked.current < 500) return;
    lastAsked.current = Date.now();
    reload();
  }, [shownStatus, reload]);
  const build = polled.data;
  if (!build) return polled.error ? <PageError error={polled.error} /> : <p>Loading…</p>;

  const act = (run: () => Promise<Build>, open = false) =>
    action.run(async () => {
      const result = await run();
      if (open) navigate(`/builds/${result.id}`);
      else polled.reload();
    });
  const params = { buildId };
  const finished = FINISHED_STATUSES.includes(build.status);
  const waiting = build.steps.some((s) => s.status === 'pending-approval');
  // A build that succeeded has nothing to restart from, even past a step allowed to fail.
  const failedStep =
    finished && build.status !== 'success'
      ? build.steps.find((s) => FAILED.includes(s.status))
      : undefined;

  return (
    <article className="build-page">
      <header className="page-head">
        <h1>
          <Link href={`/builds?pipelineId=${build.pipelineId}`}>
            {build.project}/{build.pipeline}
          </Link>{' '}
          #{build.number}
        </h1>
        <StatusBadge status={build.status} />
        <div className="actions">
          {!finished ? (
            <button
              type="button"
              disabled={action.pending || cancelling}
              onClick={() =>
                void act(async () => {
                  const result = await api.call('cancelBuild', { params });
                  setCancelling(true);
                  return result;
                })
              }
            >
              {cancelling ? 'Cancelling…' : 'Cancel'}
            </button>
          ) : null}
          {waiting ? (
            <>
              <button
                type="button"
                className="primary"
                onClick={() => void act(() => api.call('approveBuild', { params, body: {} }))}
              >
                Approve
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => void act(() => api.call('denyBuild', { params, body: {} }))}
              >
                Deny
              </button>
            </>
          ) : null}
          {finished ? (
            <button
              type="button"
              disabled={action.pending}
              onClick={() => void act(() => api.call('restartBuild', { params }), true)}
            >
              Restart
            </button>
          ) : null}
          {failedStep ? (
            <button type="button" disabled aria-describedby="no-partial-restart">
              Restart from {failedStep.name}
            </button>
          ) : null}
        </div>
      </header>
      {failedStep ? (
        <p id="no-partial-restart" className="muted small">
          {noPartialRestart(failedStep.name, build.steps)}
        </p>
      ) : null}
      {cancelling && !finished ? (
        <p role="status" className="muted">
          Cancel sent: the build stops once its engine has stopped its steps.
        </p>
      ) : null}
      {action.error ? <ErrorNote error={action.error} /> : null}
      <BuildFacts build={build} />
      <AnnotationList build={build} />
      <h2>Graph</h2>
      <PipelineGraphView steps={build.steps} />
      <h2>Steps</h2>
      <StepTimeline steps={build.steps} stages={build.stages} />
      <h2>Timing</h2>
      <Waterfall timing={build.timing} />
      <h2>Log</h2>
      <LogPanel
        buildId={build.id}
        source={log}
        buildNumber={build.number}
        steps={build.steps}
        finished={finished}
        onLines={onLines}
      />
    </article>
  );
}

const FAILED: readonly StepStatus[] = ['failure', 'timeout', 'denied', 'terminated'];

/**
 * Why a build cannot be restarted from its failed step (Codefresh can): the engine always runs
 * a build from its first step, and keeps nothing a later start could begin from.
 */
export function noPartialRestart(failed: string, steps: readonly BuildStep[]): string {
  const blocks = new Set(steps.map((s) => s.parent));
  const before = steps.filter((s) => s.status === 'success' && !blocks.has(s.name)).length;
  const earlier =
    before === 0
      ? 'no step succeeded before it, so nothing is run twice'
      : `the ${before === 1 ? 'step' : `${before} steps`} that succeeded run again`;
  return (
    `Restart from ${failed} is not possible: the engine runs a build from its first step and ` +
    `keeps nothing a later start could begin from (the variables earlier steps exported with ` +
    `cf_export were held by its engine, which has ended, and the workspace volume is the ` +
    `pipeline's cache, reused by its later builds, so the files they left may have changed). ` +
    `Restart runs it again whole: ${earlier}.`
  );
}
