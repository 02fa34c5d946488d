/**
 * Sidecar services (`services:` at pipeline or step level): every service container of the
 * blocks starts on the build network under its service name, in the order its block's
 * `depends_on` and `links` ask, each once what it depends on met its condition, with its `links`
 * aliases (as a composition's services: composition-services.ts); then each block's readiness
 * probe runs until it passes (or fails `failureThreshold` times in a row), then its `setup` runs once
 * (seeding a database needs it ready). Output of services, probes and setup goes to the owner's
 * log as `system` lines prefixed with their name. Nothing started is left behind on failure.
 * @module
 */
import { InputError, UnavailableError } from '@sluice/errors';
import type { ReadinessProbe, ServicesSpec } from '@sluice/pipeline';
import type { OutputStream } from '@sluice/docker';
import type { StepRuntime } from '../base/step-runtime.js';
import {
  emitLine,
  ensureImagePresent,
  helperName,
  runToExit,
} from '../containers/container-run.js';
import { commandSpec } from '../containers/service-containers.js';
import { startInDependencyOrder } from './composition-services.js';
import type { StartedServices } from './composition-services.js';
import { abortableSleep } from '../base/durations.js';

export interface RunningServices {
  /** Stops and removes every service container; safe to call more than once. */
  stop(): Promise<void>;
}

export const SERVICES_NOT_READY = 'SLUICE_SERVICES_NOT_READY';
export const SERVICES_SETUP_FAILED = 'SLUICE_SERVICES_SETUP_FAILED';
export const SERVICES_CANCELLED = 'SLUICE_SERVICES_CANCELLED';

/** Lines of a failing probe or setup quoted in the error. */
const QUOTED_LINES = 5;

export async function startServices(
  blocks: ServicesSpec[],
  owner: string,
  runtime: StepRuntime,
): Promise<RunningServices> {
  const started: StartedServices[] = [];
  const running: RunningServices = {
    async stop() {
      await Promise.all(started.splice(0).map((group) => group.stop()));
    },
  };
  try {
    for (const block of blocks)
      started.push(
        await startInDependencyOrder(block.services, runtime, {
          owner,
          scope: 'services block',
          beforeStart: () => throwIfCancelled(block, runtime),
        }),
      );
    for (const block of blocks) {
      if (block.readiness !== undefined) await waitUntilReady(block, owner, runtime);
      if (block.setup !== undefined) await runSetup(block, owner, runtime);
    }
    return running;
  } catch (err) {
    await running.stop().catch(() => undefined);
    throw err;
  }
}

/** Runs the probe every `periodSeconds` until `successThreshold` passes in a row. */
async function waitUntilReady(
  block: ServicesSpec,
  owner: string,
  runtime: StepRuntime,
): Promise<void> {
  const probe = block.readiness as ReadinessProbe;
  const label = blockLabel(block);
  await ensureImagePresent(probe.image, owner, runtime);
  if (!(await abortableSleep(probe.initialDelaySeconds * 1000, runtime.signal)))
    throwIfCancelled(block, runtime);
  let successes = 0;
  let failures = 0;
  for (let attempt = 1; ; attempt += 1) {
    const lines: string[] = [];
    const spec = commandSpec(
      helperName(runtime, owner, `readiness-${attempt}`),
      probe.image,
      probe.commands,
      runtime,
      owner,
    );
    const exit = await runToExit(
      spec,
      runtime,
      collect(lines, runtime, owner, `[${label} readiness]`),
      { timeoutMs: probe.timeoutSeconds * 1000 },
    );
    if (exit.kind === 'cancelled') throwIfCancelled(block, runtime, true);
    if (exit.kind === 'exited' && exit.exitCode === 0) {
      failures = 0;
      successes += 1;
      if (successes >= probe.successThreshold) {
        emitLine(runtime, owner, 'system', `[${label} readiness] ready after ${attempt} checks`);
        return;
      }
    } else {
      successes = 0;
      failures += 1;
      lines.push(describeExit(exit, probe.timeoutSeconds));
      emitLine(
        runtime,
        owner,
        'system',
        `[${label} readiness] check ${attempt} failed: ${lines.at(-1) ?? ''}`,
      );
      if (failures >= probe.failureThreshold) throw notReady(block, failures, lines, runtime);
    }
    if (!(await abortableSleep(probe.periodSeconds * 1000, runtime.signal)))
      throwIfCancelled(block, runtime, true);
  }
}

async function runSetup(block: ServicesSpec, owner: string, runtime: StepRuntime): Promise<void> {
  const setup = block.setup as { image: string; commands: string[] };
  const label = blockLabel(block);
  await ensureImagePresent(setup.image, owner, runtime);
  const lines: string[] = [];
  const spec = commandSpec(
    helperName(runtime, owner, 'setup'),
    setup.image,
    setup.commands,
    runtime,
    owner,
  );
  const exit = await runToExit(spec, runtime, collect(lines, runtime, owner, `[${label} setup]`));
  if (exit.kind === 'cancelled') throwIfCancelled(block, runtime, true);
  if (exit.kind === 'exited' && exit.exitCode === 0) return;
  lines.push(describeExit(exit, 0));
  throw new InputError(
    SERVICES_SETUP_FAILED,
    `Setup of services ${label} failed: ${quote(lines, runtime)}`,
    {
      details: { services: label },
      hint: 'Fix the setup commands of the services block; its output is in the step log',
    },
  );
}

function collect(
  lines: string[],
  runtime: StepRuntime,
  owner: string,
  prefix: string,
): (stream: OutputStream, line: string) => void {
  return (_stream, line) => {
    lines.push(line);
    if (lines.length > QUOTED_LINES) lines.shift();
    emitLine(runtime, owner, 'system', `${prefix} ${line}`);
  };
}

function describeExit(exit: Awaited<ReturnType<typeof runToExit>>, timeoutSeconds: number): string {
  switch (exit.kind) {
    case 'exited':
      return `exited with code ${exit.exitCode}`;
    case 'timed-out':
      return `did not finish within ${timeoutSeconds}s`;
    case 'rejected':
      return exit.reason;
    case 'cancelled':
      return 'cancelled';
  }
}

function notReady(
  block: ServicesSpec,
  failures: number,
  lines: string[],
  runtime: StepRuntime,
): InputError {
  const label = blockLabel(block);
  return new InputError(
    SERVICES_NOT_READY,
    `Services ${label} were not ready: the readiness probe failed ${failures} times in a row: ${quote(lines, runtime)}`,
    {
      details: { services: label, failures },
      hint: 'Check that the services start and listen where the readiness commands look, or raise failureThreshold, periodSeconds or initialDelaySeconds',
    },
  );
}

function quote(lines: string[], runtime: StepRuntime): string {
  return runtime.masker.mask(lines.slice(-QUOTED_LINES).join(' | '));
}

/** `db` for a named block, else its service names: `postgres, redis`. */
function blockLabel(block: ServicesSpec): string {
  return block.name ?? block.services.map((s) => s.name).join(', ');
}

function throwIfCancelled(block: ServicesSpec, runtime: StepRuntime, force = false): void {
  if (!force && !runtime.signal?.aborted) return;
  throw new UnavailableError(
    SERVICES_CANCELLED,
    `Services ${blockLabel(block)} were not started: the build was cancelled`,
  );
}
