/**
 * The `composition` step (integration tests, the legacy way): the composition's services start
 * on the build network like sidecars, then the candidates run to their exit; every candidate
 * must exit 0. `composition_variables` substitute `${VAR}` in the composition's values first.
 * Candidates' output is the step's log; services' output goes there as prefixed system lines.
 * Services and candidates are removed afterwards, whatever happened. Services start in
 * `depends_on` order with compose's conditions (composition-services.ts); a composition written
 * as a file path is read from the working directory when the step runs (composition-file.ts).
 * @module
 */
import type { CompositionStep, ServiceContainer } from '@sluice/pipeline';
import type { StepOutcome, StepRuntime } from '../base/step-runtime.js';
import {
  emitLine,
  ensureImagePresent,
  outcomeOfError,
  runToExit,
} from '../containers/container-run.js';
import type { HelperExit } from '../containers/container-run.js';
import { serviceSpec } from '../containers/service-containers.js';
import { startComposition } from './composition-services.js';
import type { RunningComposition } from './composition-services.js';
import { readCompositionFile } from './composition-file.js';

export async function runCompositionStep(
  written: CompositionStep,
  runtime: StepRuntime,
): Promise<StepOutcome> {
  let running: RunningComposition | undefined;
  try {
    const step = written.file === undefined ? written : await readCompositionFile(written, runtime);
    const vars = new Map(step.variables);
    const services = step.services.map((s) => substituteService(s, vars));
    const candidates = step.candidates.map((s) => substituteService(s, vars));
    if (candidates.length === 0)
      return { result: 'failure', reason: 'The composition has no composition_candidates to run' };
    running = await startComposition(step, services, candidates, runtime);
    const composition = running;
    const exits = await Promise.all(
      candidates.map((c) => runCandidate(c, step, composition, runtime)),
    );
    return outcomeOf(candidates, exits, runtime);
  } catch (err) {
    return outcomeOfError(
      err,
      runtime,
      'The composition was stopped because the build was cancelled',
    );
  } finally {
    await running?.stop();
  }
}

async function runCandidate(
  candidate: ServiceContainer,
  step: CompositionStep,
  composition: RunningComposition,
  runtime: StepRuntime,
): Promise<HelperExit> {
  await composition.ready(candidate);
  await ensureImagePresent(candidate.image, step.name, runtime);
  const prefix = step.candidates.length > 1 ? `[${candidate.name}] ` : '';
  const spec = serviceSpec(candidate, runtime, step.name, composition.optionsFor(candidate));
  return runToExit(spec, runtime, (stream, line) =>
    emitLine(runtime, step.name, stream, `${prefix}${line}`),
  );
}

function outcomeOf(
  candidates: ServiceContainer[],
  exits: HelperExit[],
  runtime: StepRuntime,
): StepOutcome {
  if (runtime.signal?.aborted || exits.some((e) => e.kind === 'cancelled'))
    return {
      result: 'terminated',
      reason: 'The composition was stopped because the build was cancelled',
    };
  const failed: string[] = [];
  let exitCode = 0;
  exits.forEach((exit, i) => {
    const name = candidates[i]?.name ?? '?';
    if (exit.kind === 'exited' && exit.exitCode === 0) return;
    if (exit.kind === 'exited') {
      exitCode ||= exit.exitCode;
      failed.push(`${name} exited with code ${exit.exitCode}`);
    } else failed.push(`${name}: ${exit.kind === 'rejected' ? exit.reason : exit.kind}`);
  });
  if (failed.length === 0) return { result: 'success', exitCode: 0 };
  return {
    result: 'failure',
    exitCode: exitCode || undefined,
    reason: runtime.masker.mask(`Composition candidate ${failed.join('; ')}`),
  };
}

/** `${VAR}` in every value of the service, from `composition_variables`; unknown names stay. */
function substituteService(service: ServiceContainer, vars: Map<string, string>): ServiceContainer {
  const sub = (text: string) =>
    text.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g,
      (whole, name: string) => vars.get(name) ?? whole,
    );
  return {
    ...service,
    image: sub(service.image),
    command: service.command?.map(sub),
    entrypoint: service.entrypoint?.map(sub),
    environment: service.environment.map(([k, v]) => [k, sub(v)]),
    workingDirectory:
      service.workingDirectory === undefined ? undefined : sub(service.workingDirectory),
    volumes: service.volumes.map(sub),
    ports: service.ports.map(sub),
    labels: service.labels.map(([k, v]) => [k, sub(v)]),
  };
}
