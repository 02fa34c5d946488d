/**
 * A composition's containers, and a `services:` block's, started as compose starts them: a
 * service after the services it names in `depends_on` or `links`, and only once each of those
 * met its condition —
 * `service_started` (running), `service_healthy` (its ports answer on the build network, since
 * compose healthchecks are not run; a service without ports counts once running) or
 * `service_completed_successfully` (exited 0). `links` aliases are extra names on the build
 * network; the composition's own volumes are created for the step and removed after it.
 * Candidates wait the same way for what they depend on, then run to their exit.
 * @module
 */
import { InputError } from '@sluice/errors';
import type { CompositionStep, ServiceContainer, ServiceDependency } from '@sluice/pipeline';
import type { StartedContainer } from '@sluice/docker';
import type { StepRuntime } from '../base/step-runtime.js';
import {
  emitLine,
  ensureImagePresent,
  helperName,
  runToExit,
} from '../containers/container-run.js';
import { commandSpec, serviceSpec } from '../containers/service-containers.js';
import type { ServiceSpecOptions } from '../containers/service-containers.js';

export const COMPOSITION_DEPENDENCY = 'SLUICE_COMPOSITION_DEPENDENCY';

/** How long a `service_healthy` dependency may take to answer on its ports. */
const HEALTHY_TIMEOUT_SECONDS = 60;

export interface RunningComposition {
  /** Waits until `service`'s dependencies met their conditions. */
  ready(service: ServiceContainer): Promise<void>;
  /** What a candidate's container gets: aliases, the step's volumes, the flow volume. */
  optionsFor(service: ServiceContainer): ServiceSpecOptions;
  /** Stops and removes the services and the composition's volumes; safe to call twice. */
  stop(): Promise<void>;
}

/** Where the services are declared, for messages: a composition step's, or a services block's. */
export type ServiceScope = 'composition' | 'services block';

/** Services in an order where each comes after what it depends on or links to. */
export function startOrder(
  services: ServiceContainer[],
  candidates: ServiceContainer[] = [],
  scope: ServiceScope = 'composition',
) {
  const byName = new Map(services.map((s) => [s.name, s]));
  const ordered: ServiceContainer[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (service: ServiceContainer, path: string[]) => {
    if (state.get(service.name) === 'done') return;
    if (state.get(service.name) === 'visiting')
      throw dependencyError(
        `${SUBJECT[scope]}s depend on each other in a circle: ${[...path, service.name].join(' → ')}`,
        scope,
      );
    state.set(service.name, 'visiting');
    for (const dep of dependenciesOf(service)) {
      const target = byName.get(dep.name);
      if (target === undefined) throw unknownDependency(service, dep.name, byName, scope);
      visit(target, [...path, service.name]);
    }
    state.set(service.name, 'done');
    ordered.push(service);
  };
  for (const service of services) visit(service, []);
  for (const candidate of candidates)
    for (const dep of dependenciesOf(candidate))
      if (!byName.has(dep.name)) throw unknownDependency(candidate, dep.name, byName, scope);
  return ordered;
}

/** `depends_on` entries plus `links` targets (started first, as compose does). */
export function dependenciesOf(service: ServiceContainer): ServiceDependency[] {
  const named = new Set(service.dependsOn.map((d) => d.name));
  const linked = service.links
    .map((link) => link.split(':')[0] ?? link)
    .filter((name) => !named.has(name))
    .map((name) => ({ name, condition: 'service_started' as const }));
  return [...service.dependsOn, ...linked];
}

/** Services started in dependency order (`startInDependencyOrder`). */
export interface StartedServices {
  /** Waits until `service`'s dependencies met their conditions. */
  ready: (service: ServiceContainer) => Promise<void>;
  /** What a container of the group gets: the caller's options and its `links` aliases. */
  optionsFor: (service: ServiceContainer) => ServiceSpecOptions;
  /** Stops and removes the started containers; safe to call twice. */
  stop: () => Promise<void>;
}

export interface DependencyOrderOptions {
  /** The step whose log the services' output goes to. */
  owner: string;
  scope: ServiceScope;
  /** Containers that run after the services (a composition's candidates): checked, not started. */
  candidates?: ServiceContainer[];
  /** What each container gets besides its `links` aliases. */
  specOptions?: (service: ServiceContainer) => ServiceSpecOptions;
  /** Called before each service starts: throws to stop there (a cancelled build). */
  beforeStart?: () => void;
}

/**
 * `services` started as compose starts them (see the module doc), their output in the owner's
 * log. On a failure what was started is stopped and removed before the error goes on.
 */
export async function startInDependencyOrder(
  services: ServiceContainer[],
  runtime: StepRuntime,
  options: DependencyOrderOptions,
): Promise<StartedServices> {
  const { owner, scope, candidates = [] } = options;
  const order = startOrder(services, candidates, scope);
  const aliases = linkAliases([...services, ...candidates]);
  const optionsFor = (service: ServiceContainer): ServiceSpecOptions => ({
    ...options.specOptions?.(service),
    aliases: aliases.get(service.name) ?? [],
  });
  const started = new Map<string, StartedContainer>();
  const exits = new Map<string, Promise<number>>();
  const stop = async () => {
    const all = [...started.values()];
    started.clear();
    await Promise.all(
      all.map(async (container) => {
        await container.stop(runtime.stopGraceSeconds);
        await runtime.docker.removeContainer(container.id);
      }),
    );
  };
  const ready = async (service: ServiceContainer) => {
    for (const dep of dependenciesOf(service)) {
      const target = services.find((s) => s.name === dep.name);
      if (target !== undefined)
        await waitFor(dep, { target, dependent: service, exits, owner, scope }, runtime);
    }
  };
  try {
    for (const service of order) {
      options.beforeStart?.();
      await ready(service);
      await ensureImagePresent(service.image, owner, runtime);
      const prefix = `[${service.name}]`;
      emitLine(runtime, owner, 'system', `${prefix} starting ${service.image}`);
      const container = await runtime.docker.start(
        serviceSpec(service, runtime, owner, optionsFor(service)),
        (_stream, line) => emitLine(runtime, owner, 'system', `${prefix} ${line}`),
      );
      started.set(service.name, container);
      exits.set(service.name, container.wait());
    }
    return { ready, optionsFor, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}

export async function startComposition(
  step: CompositionStep,
  services: ServiceContainer[],
  candidates: ServiceContainer[],
  runtime: StepRuntime,
): Promise<RunningComposition> {
  const volumes = new Map(
    step.volumes.map((name) => [name, helperName(runtime, step.name, `volume-${name}`)]),
  );
  const removeVolumes = async () => {
    for (const name of volumes.values()) await runtime.docker.removeVolume(name);
  };
  try {
    for (const name of volumes.values()) await runtime.docker.ensureVolume(name, runtime.labels);
    const group = await startInDependencyOrder(services, runtime, {
      owner: step.name,
      scope: 'composition',
      candidates,
      specOptions: () => ({ extraEnv: step.environment, volumes, flowVolume: step.addFlowVolume }),
    });
    const stop = async () => {
      await group.stop();
      await removeVolumes();
    };
    return { ready: group.ready, optionsFor: group.optionsFor, stop };
  } catch (err) {
    await removeVolumes().catch(() => undefined);
    throw err;
  }
}

/** `links: [db:database]` on any service: `db` also answers to `database`. */
function linkAliases(services: ServiceContainer[]): Map<string, string[]> {
  const aliases = new Map<string, string[]>();
  for (const service of services) {
    for (const link of service.links) {
      const [target = '', alias] = link.split(':');
      if (alias === undefined || alias === target) continue;
      aliases.set(target, [...(aliases.get(target) ?? []), alias]);
    }
  }
  return aliases;
}

interface Waiting {
  target: ServiceContainer;
  dependent: ServiceContainer;
  exits: Map<string, Promise<number>>;
  owner: string;
  scope: ServiceScope;
}

async function waitFor(
  dep: ServiceDependency,
  waiting: Waiting,
  runtime: StepRuntime,
): Promise<void> {
  const { target, dependent, exits, owner, scope } = waiting;
  if (dep.condition === 'service_started') return;
  const label = `[${dependent.name}]`;
  const subject = `${SUBJECT[scope]} ${dependent.name}`;
  if (dep.condition === 'service_completed_successfully') {
    emitLine(runtime, owner, 'system', `${label} waiting for ${target.name} to complete`);
    const code = await exits.get(target.name);
    if (code === 0) return;
    throw dependencyError(
      `${subject} depends on ${target.name} completing successfully, but it exited with code ${code ?? '?'}`,
      scope,
    );
  }
  const ports = target.ports.map(containerPort).filter((p) => p !== undefined);
  if (ports.length === 0) return;
  emitLine(
    runtime,
    owner,
    'system',
    `${label} waiting for ${target.name} on port ${ports.join(', ')}`,
  );
  // Connect, then hang up at once (`-e true`): busybox's nc has no -z, and without -e it would
  // wait for a server that keeps the connection open.
  const checks = ports.map(
    (port) => `until nc -w 1 ${target.name} ${port} -e true 2>/dev/null; do sleep 0.5; done`,
  );
  const spec = commandSpec(
    helperName(runtime, owner, `wait-${dependent.name}-${target.name}`),
    runtime.sandboxImage,
    checks,
    runtime,
    owner,
  );
  const exit = await runToExit(spec, runtime, () => undefined, {
    timeoutMs: HEALTHY_TIMEOUT_SECONDS * 1000,
  });
  if (exit.kind === 'exited' && exit.exitCode === 0) return;
  if (exit.kind === 'cancelled') throw dependencyError(`The ${scope} was cancelled`, scope);
  throw dependencyError(
    `${subject} depends on ${target.name} being healthy, but its port ${ports.join(', ')} did not answer within ${HEALTHY_TIMEOUT_SECONDS}s`,
    scope,
  );
}

/** `8080:80` → 80, `80` → 80, `127.0.0.1:8080:80/tcp` → 80. */
function containerPort(entry: string): string | undefined {
  const last = entry.split(':').at(-1)?.split('/')[0]?.split('-')[0];
  return last !== undefined && /^\d+$/.test(last) ? last : undefined;
}

const SUBJECT: Record<ServiceScope, string> = {
  composition: 'Composition service',
  'services block': 'Service',
};

function unknownDependency(
  service: ServiceContainer,
  name: string,
  byName: Map<string, ServiceContainer>,
  scope: ServiceScope,
): InputError {
  return dependencyError(
    `${SUBJECT[scope]} ${service.name} depends on ${name}, which is not a service of the ${scope} (${[...byName.keys()].join(', ') || 'none'})`,
    scope,
  );
}

function dependencyError(message: string, scope: ServiceScope): InputError {
  return new InputError(COMPOSITION_DEPENDENCY, message, {
    hint: `Fix the services' depends_on and links: each names a service of the same ${scope}, without a circle`,
  });
}
