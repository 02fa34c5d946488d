/**
 * Before any step starts, the build's log names what the pipeline uses that Sluice accepts but
 * does not run (`pipeline.notRun`, the parser's UNSUPPORTED and IGNORED warnings), one line
 * each with where it is written, so nothing a file asks for is dropped silently. A construct
 * whose absence would make the build wrong (`effect: 'fails'`) stops the build there, with
 * every step skipped; the others are only named.
 * @module
 */
import type { NotRunConstruct, Pipeline } from '@sluice/pipeline';
import type { BuildEventSink } from '../base/build-events.js';

/** The owner of build-level lines that belong to no step. */
export const PIPELINE_LOG_OWNER = 'pipeline';

export interface NotRunCheckOptions {
  emit: BuildEventSink;
  clock: () => number;
}

/** The reason the build stops, or undefined when it may run. */
export function announceNotRun(
  pipeline: Pipeline,
  options: NotRunCheckOptions,
): string | undefined {
  const { notRun } = pipeline;
  if (notRun.length === 0) return undefined;
  const say = (line: string) =>
    options.emit({
      type: 'step-log',
      step: PIPELINE_LOG_OWNER,
      stream: 'system',
      line,
      at: options.clock(),
    });
  say(`This pipeline uses ${count(notRun.length)} that Sluice does not run:`);
  for (const construct of notRun) say(`  ${where(pipeline, construct)}: ${construct.message}`);
  const fatal = notRun.filter((construct) => construct.effect === 'fails');
  if (fatal.length === 0) return undefined;
  const [first] = fatal as [NotRunConstruct];
  const more = fatal.length > 1 ? ` (and ${count(fatal.length - 1)} more)` : '';
  return `${subject(first.message)} at ${where(pipeline, first)} is not run by Sluice${more}; no step was started`;
}

function where(pipeline: Pipeline, construct: NotRunConstruct): string {
  return `${pipeline.file}:${construct.line}:${construct.column}`;
}

function count(n: number): string {
  return n === 1 ? '1 construct' : `${n} constructs`;
}

/** `Step type "deploy"` of `Step type "deploy" is not run by Sluice: …`. */
function subject(message: string): string {
  const end = message.indexOf(' is not run by Sluice');
  return end > 0 ? message.slice(0, end) : message;
}
