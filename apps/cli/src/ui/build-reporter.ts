/**
 * Live build output: a header per step, its log lines as they arrive, a result line, then a
 * summary table. Lines arrive already masked by the engine.
 * @module
 */
import type { BuildEvent, BuildSummary, StepResult } from '@sluice/engine';
import { formatDuration, formatTable } from './terminal.js';
import type { Style, Terminal } from './terminal.js';

const RESULT_STYLE: Record<StepResult | 'error', Style> = {
  success: 'green',
  failure: 'red',
  skipped: 'dim',
  terminated: 'yellow',
  error: 'red',
};

const RESULT_MARK: Record<StepResult, string> = {
  success: '✔',
  failure: '✖',
  skipped: '↷',
  terminated: '■',
};

export function createBuildReporter(
  term: Terminal,
  totalSteps: number,
): (event: BuildEvent) => void {
  let index = 0;
  return (event) => {
    switch (event.type) {
      case 'build-started':
        term.out(
          term.paint('bold', `▶ ${event.pipelineName}`) +
            term.paint('dim', ` · build ${event.buildId} · volume ${event.volumeName}`),
        );
        return;
      case 'step-started':
        index += 1;
        term.out('');
        term.out(
          term.paint('cyan', `━━ [${index}/${totalSteps}] ${event.step}`) +
            (event.title ? term.paint('dim', ` · ${event.title}`) : ''),
        );
        return;
      case 'step-log':
        term.out(formatLogLine(term, event.stream, event.line));
        return;
      case 'step-finished':
        // A skipped step never started: it still takes its place in the count.
        if (event.result === 'skipped') index += 1;
        term.out(
          stepResultLine(
            term,
            event,
            event.result === 'skipped' ? `[${index}/${totalSteps}] ` : '',
          ),
        );
        return;
      case 'build-finished':
        return;
    }
  };
}

function formatLogLine(
  term: Terminal,
  stream: 'stdout' | 'stderr' | 'system',
  line: string,
): string {
  if (stream === 'system') return term.paint('magenta', `  » ${line}`);
  return stream === 'stderr' && term.color ? `  ${term.paint('yellow', line)}` : `  ${line}`;
}

function stepResultLine(
  term: Terminal,
  event: Extract<BuildEvent, { type: 'step-finished' }>,
  counter: string,
): string {
  const mark = term.paint(
    RESULT_STYLE[event.result],
    `${RESULT_MARK[event.result]} ${counter}${event.step} ${event.result}`,
  );
  if (event.result === 'skipped')
    return `${mark}${event.reason ? term.paint('dim', `: ${event.reason}`) : ''}`;
  const exit =
    event.exitCode !== undefined && event.exitCode !== 0 ? ` (exit code ${event.exitCode})` : '';
  return `${mark} in ${formatDuration(event.durationMs)}${exit}`;
}

export function printSummary(term: Terminal, summary: BuildSummary): void {
  term.out('');
  const rows = [
    ['STEP', 'RESULT', 'DURATION', 'NOTE'],
    ...summary.steps.map((s) => [
      s.name,
      s.result,
      s.result === 'skipped' ? '-' : formatDuration(s.durationMs),
      s.reason ?? '',
    ]),
  ];
  const [header, ...body] = formatTable(rows);
  term.out(term.paint('bold', header ?? ''));
  body.forEach((line, i) => {
    const step = summary.steps[i];
    term.out(step ? term.paint(RESULT_STYLE[step.result], line) : line);
  });
  term.out('');
  const verdict =
    summary.result === 'success'
      ? 'succeeded'
      : summary.result === 'failure'
        ? 'failed'
        : summary.result === 'terminated'
          ? 'was terminated'
          : 'failed with an error';
  const style =
    summary.result === 'success' ? 'green' : summary.result === 'terminated' ? 'yellow' : 'red';
  term.out(
    term.paint(
      style,
      term.paint(
        'bold',
        `Build ${summary.buildId} ${verdict} in ${formatDuration(summary.durationMs)}`,
      ),
    ),
  );
  if (summary.reason && summary.result === 'error') term.out(term.paint('red', summary.reason));
}
