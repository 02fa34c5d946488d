/**
 * A control-plane build as people read it: log lines as `[step] line`, then the verdict, each
 * step's status and duration, and the timing waterfall (queued → elected → dispatched → engine
 * process started → engine running → first step → finished) with a bar per phase.
 * @module
 */
import { formatBytes } from '@sluice/protocol';
import type { Build, BuildCache, BuildTiming, LogLine } from '@sluice/protocol';
import { fitTable, formatAge, formatDuration } from '../ui/terminal.js';
import type { Style, Terminal } from '../ui/terminal.js';

const STATUS_STYLE: Record<string, Style> = {
  success: 'green',
  failure: 'red',
  error: 'red',
  terminated: 'yellow',
  skipped: 'dim',
  timeout: 'red',
  denied: 'red',
  'pending-approval': 'yellow',
};

const PHASES: [keyof BuildTiming, string][] = [
  ['queuedAt', 'queued'],
  ['electedAt', 'elected by the scheduler'],
  ['dispatchedAt', 'dispatched to the agent'],
  ['objectsCreatedAt', 'engine process started'],
  ['engineStartedAt', 'engine running the build'],
  ['firstStepStartedAt', 'first step started'],
  ['finishedAt', 'finished'],
];

const BAR_WIDTH = 30;

export function formatLogLine(term: Terminal, line: LogLine): string {
  const text = formatStepLine(term, line);
  return line.step === null ? term.paint('magenta', `» ${text}`) : `[${line.step}] ${text}`;
}

/** A log line for `--raw`: framed as `formatLogLine` frames it, its text as stored, unpainted. */
export function rawLogLine(line: LogLine): string {
  return line.step === null ? `» ${line.line}` : `[${line.step}] ${line.line}`;
}

/** A line of one step's log (`sluice logs --step`): as the step printed it, stderr in yellow. */
export function formatStepLine(term: Terminal, line: LogLine): string {
  return line.stream === 'stderr' ? term.paint('yellow', line.line) : line.line;
}

export function printRemoteBuild(term: Terminal, build: Build): void {
  const style = STATUS_STYLE[build.status] ?? 'bold';
  const reason = build.reason === null ? '' : `: ${build.reason}`;
  term.out('');
  term.out(term.paint(style, `Build ${build.id} ${build.status}${reason}`));
  printSteps(term, build);
  printWaterfall(term, build.timing);
  if (build.cache !== null) term.out(`Cache: ${describeCache(build.cache)}`);
}

/**
 * The cache record in one line: `hit: volume sluice-vol-1, made 3d ago, used 2h before, 5 builds
 * (reused: the same …)`.
 */
export function describeCache(cache: BuildCache, now = Date.now()): string {
  const facts = [
    cache.volume === null ? `claim ${cache.claim}` : `volume ${cache.volume}`,
    cache.volumeCreatedAt === null ? '' : `made ${formatAge(cache.volumeCreatedAt, now)} ago`,
    cache.previousUseAt === null ? '' : `previous build ${formatAge(cache.previousUseAt, now)} ago`,
    cache.mountCount === null
      ? ''
      : `${cache.mountCount} build${cache.mountCount === 1 ? '' : 's'}`,
    cache.usedBytes === null ? '' : `${formatBytes(cache.usedBytes)} cached`,
    cache.capacity ?? '',
  ].filter((fact) => fact !== '');
  return `${cache.outcome}: ${facts.join(', ')} (${cache.reason})`;
}

/**
 * One row per step (a step in a parallel block or typed step indented under it), with its
 * status, duration and, with `detail`, attempt, exit code and reason.
 */
export function printSteps(
  term: Terminal,
  build: Build,
  options: { detail?: boolean; columns?: number } = {},
): void {
  const depth = (name: string | null, seen = 0): number => {
    const parent = build.steps.find((s) => s.name === name)?.parent ?? null;
    return name === null || seen > 20 ? 0 : 1 + depth(parent, seen + 1);
  };
  const header = ['STEP', 'STATUS', 'DURATION'];
  if (options.detail) header.push('TITLE', 'ATTEMPT', 'EXIT', 'REASON');
  const rows = build.steps.map((s) => {
    const row = [
      `${'  '.repeat(depth(s.parent))}${s.name}`,
      s.status,
      duration(s.startedAt, s.finishedAt),
    ];
    if (options.detail)
      row.push(
        s.title ?? '',
        String(s.attempt),
        s.exitCode === null ? '-' : String(s.exitCode),
        answerOf(s) ?? s.reason ?? '',
      );
    return row;
  });
  for (const [i, line] of fitTable([header, ...rows], options.columns ?? 100).entries()) {
    const step = i === 0 ? undefined : build.steps[i - 1];
    term.out(step === undefined ? term.paint('bold', line) : paintStatus(term, step.status, line));
  }
}

/** `approved by ana` (or denied) for an answered approval step. */
function answerOf(step: Build['steps'][number]): string | undefined {
  if (step.answeredBy === null) return undefined;
  return `${step.status === 'denied' ? 'denied' : 'approved'} by ${step.answeredBy}`;
}

export function printWaterfall(term: Terminal, timing: BuildTiming): void {
  const start = Date.parse(timing.queuedAt ?? '');
  const end = Date.parse(timing.finishedAt ?? '');
  if (Number.isNaN(start)) return;
  const total = Math.max(1, (Number.isNaN(end) ? Date.now() : end) - start);
  let previous = start;
  term.out('');
  term.out(term.paint('bold', 'Timing (from queued)'));
  for (const [key, label] of PHASES) {
    const at = timing[key];
    if (at === undefined) continue;
    const offset = Date.parse(at) - start;
    const phase = Date.parse(at) - previous;
    previous = Date.parse(at);
    const bar = '█'.repeat(Math.max(1, Math.round((offset / total) * BAR_WIDTH)));
    const took = key === 'queuedAt' ? '' : `  (${formatDuration(phase)})`;
    term.out(
      `  ${`+${formatDuration(offset)}`.padStart(8)}  ${bar.padEnd(BAR_WIDTH)}  ${label}${took}`,
    );
  }
}

function paintStatus(term: Terminal, status: string, text: string): string {
  const style = STATUS_STYLE[status];
  return style === undefined ? text : term.paint(style, text);
}

export function duration(from: string | null, to: string | null): string {
  if (from === null || to === null) return '-';
  return formatDuration(Date.parse(to) - Date.parse(from));
}
