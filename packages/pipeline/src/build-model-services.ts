/**
 * Compose-style containers into the model: the services of a composition step and the
 * `services:` blocks of the pipeline and of freestyle steps, with readiness defaults from
 * reference §5.7.
 * @module
 */
import {
  asBool,
  asList,
  asMap,
  asNumber,
  environmentPairs,
  optionalString,
} from './build-model-values.js';
import { composeServiceEntries } from './schema/services-schema.js';
import { scalarText } from './schema/validators.js';
import type { Raw } from './build-model-values.js';
import type { ReadinessProbe, ServiceContainer, ServiceDependency, ServicesSpec } from './model.js';

export function composeContainers(composition: unknown): ServiceContainer[] {
  return composeServiceEntries(composition, []).map(({ name, raw }) =>
    serviceContainer(name, asMap(raw) ?? {}),
  );
}

function serviceContainer(name: string, raw: Raw): ServiceContainer {
  return {
    name,
    image: scalarText(raw.image),
    // A string command runs through a shell, as written; a list is the exact argv.
    command: typeof raw.command === 'string' ? ['sh', '-c', raw.command] : asList(raw.command),
    entrypoint:
      typeof raw.entrypoint === 'string' ? shellWords(raw.entrypoint) : asList(raw.entrypoint),
    environment: environmentPairs(raw.environment),
    workingDirectory: optionalString(raw.working_dir),
    volumes: asList(raw.volumes) ?? [],
    ports: asList(raw.ports) ?? [],
    dependsOn: dependencies(raw.depends_on),
    links: asList(raw.links) ?? [],
    labels: environmentPairs(raw.labels),
  };
}

/** `depends_on: [a, b]`, or `depends_on: {a: {condition: …}}`. */
function dependencies(value: unknown): ServiceDependency[] {
  if (Array.isArray(value))
    return value.map((name) => ({ name: scalarText(name), condition: 'service_started' }));
  return Object.entries(asMap(value) ?? {}).map(([name, entry]) => {
    const condition = asMap(entry)?.condition;
    return {
      name,
      condition:
        condition === 'service_healthy' || condition === 'service_completed_successfully'
          ? condition
          : 'service_started',
    };
  });
}

/** The names of a compose file's top-level `volumes:`; none for a bare map of services. */
export function composeVolumes(composition: unknown): string[] {
  const map = asMap(composition);
  if (map === undefined || asMap(map.services) === undefined) return [];
  return Object.keys(asMap(map.volumes) ?? {});
}

/** Splits like a shell would, honouring quotes, without expanding anything. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"((?:\\.|[^"\\])*)"|'([^']*)'|(\S+)/g)) {
    words.push(match[1]?.replace(/\\(.)/g, '$1') ?? match[2] ?? match[3] ?? '');
  }
  return words;
}

function servicesSpec(raw: Raw): ServicesSpec {
  const readiness = asMap(raw.readiness);
  const setup = asMap(raw.setup);
  return {
    name: optionalString(raw.name),
    services: composeContainers(raw.composition),
    readiness: readiness === undefined ? undefined : readinessProbe(readiness),
    setup:
      setup === undefined
        ? undefined
        : { image: scalarText(setup.image), commands: asList(setup.commands) ?? [] },
    references: [],
    ...(typeof raw.composition === 'string' ? { file: raw.composition } : {}),
    ...(asBool(raw.shared_host_network, false) ? { sharedHostNetwork: true } : {}),
  };
}

function readinessProbe(raw: Raw): ReadinessProbe {
  return {
    image: scalarText(raw.image),
    commands: asList(raw.commands) ?? [],
    periodSeconds: asNumber(raw.periodSeconds, 10),
    timeoutSeconds: asNumber(raw.timeoutSeconds, 10),
    initialDelaySeconds: asNumber(raw.initialDelaySeconds, 0),
    successThreshold: asNumber(raw.successThreshold, 1),
    failureThreshold: asNumber(raw.failureThreshold, 3),
  };
}

/** Pipeline level: one block or a list of blocks. */
export function rootServicesSpecs(value: unknown): ServicesSpec[] {
  if (Array.isArray(value)) return value.map((block) => servicesSpec(asMap(block) ?? {}));
  const block = asMap(value);
  return block === undefined ? [] : [servicesSpec(block)];
}

/** Step level: an inline block, or names of pipeline-level blocks. */
export function stepServicesSpec(value: unknown): ServicesSpec | undefined {
  if (Array.isArray(value)) {
    const references = value.map(scalarText);
    return { services: [], references };
  }
  const block = asMap(value);
  return block === undefined ? undefined : servicesSpec(block);
}
