/**
 * Compose-style service containers (reference §5.3 composition, §5.7 services): the inline
 * composition map, the `services:` blocks of the pipeline and of a step, with their readiness
 * probe and setup container. A composition may also be a path to a compose file in the
 * repository or the name of a stored composition (a string).
 * @module
 */
import { commandText, environment, isList, isString } from './common-fields.js';
import {
  any,
  bool,
  isPlainMap,
  lenientObject,
  list,
  numberIn,
  object,
  record,
  required,
  str,
  reportNotRun,
  typeName,
  union,
  notRun,
} from './validators.js';
import type { Fields, Schema } from './validators.js';
import type { IssuePath } from '../pipeline-issue.js';

/** Why the richer compose keys are not run yet; the engine's composition step takes them over. */
export const NO_COMPOSE = 'the engine does not run this compose setting yet';

/**
 * Compose keys Sluice knows but does not run; any other key is ignored with a warning naming the
 * closest known one, as Codefresh ignores it.
 */
const NOT_RUN_COMPOSE_KEYS = [
  'build',
  'container_name',
  'expose',
  'healthcheck',
  'hostname',
  'networks',
  'privileged',
  'restart',
  'user',
];

const names = union([
  { when: isList, schema: list(str) },
  { when: isPlainMap, schema: record(object('depends_on entry', { condition: str }), 'a map') },
]);

const composeServiceFields: Fields = {
  image: required(str),
  command: commandText,
  entrypoint: commandText,
  environment,
  working_dir: str,
  volumes: list(str),
  ports: list(str),
  // The engine starts them in this order for composition steps and services blocks alike
  // (composition-services.ts); labels go on every container.
  depends_on: names,
  links: list(str),
  labels: environment,
  ...Object.fromEntries(NOT_RUN_COMPOSE_KEYS.map((key) => [key, notRun(NO_COMPOSE, 'fails')])),
};

/** A service of a composition step (or a candidate), or of a services block; unknown keys warn. */
export const composeService = lenientObject('compose service', composeServiceFields);

/** A compose file's `services:` map holds maps; a bare map of services has one named so. */
function isComposeFile(value: Record<string, unknown>): boolean {
  return isPlainMap(value.services) && Object.values(value.services).every(isPlainMap);
}

/** The services of an inline composition, in either form, with where each one is written. */
export function composeServiceEntries(
  value: unknown,
  path: IssuePath,
): { name: string; raw: unknown; path: IssuePath }[] {
  if (!isPlainMap(value)) return [];
  const [services, at] = isComposeFile(value)
    ? [value.services as Record<string, unknown>, [...path, 'services']]
    : [value, path];
  return Object.entries(services).map(([name, raw]) => ({ name, raw, path: [...at, name] }));
}

const composeFile = (inStep: boolean) =>
  object('composition', {
    version: str,
    services: record(composeService, 'a map of services'),
    volumes: inStep
      ? record(any, 'a map of volumes')
      : notRun(NO_COMPOSE, 'fails', record(any, 'a map of volumes')),
    networks: notRun(NO_COMPOSE, 'fails'),
  });

/**
 * A composition step's `composition` (a map, or the path of a compose file the engine reads when
 * the step runs) and a services block's (a map only: a file is not read there).
 */
const compositionSchema = (inStep: boolean): Schema => ({
  describe: 'a map of services',
  check(value, path, ctx) {
    if (isString(value) && inStep) {
      if (String(value).trim() === '') ctx.report(path, '"composition" must not be empty');
      return;
    }
    if (isString(value)) {
      if (String(value).trim() === '') ctx.report(path, '"composition" must not be empty');
      else {
        const why = 'compose files and stored compositions are not read yet';
        const construct = `Composition "${String(value)}" (a file or a stored composition)`;
        reportNotRun(ctx, { construct, why, effect: 'fails', path, at: 'value' });
      }
      return;
    }
    if (!isPlainMap(value)) {
      ctx.report(path, `"composition" must be a map of services, got ${typeName(value)}`);
      return;
    }
    if (isComposeFile(value)) composeFile(inStep).check(value, path, ctx);
    else record(composeService, 'a map of services').check(value, path, ctx);
    if (composeServiceEntries(value, path).length === 0) {
      ctx.report(path, '"composition" must hold at least one service');
    }
  },
});

export const stepComposition = compositionSchema(true);
const composition = compositionSchema(false);

const seconds = (min: number) => numberIn(min, 3600, true);

const servicesBlock = object('services block', {
  name: str,
  composition: required(composition),
  readiness: object('readiness', {
    image: required(str),
    commands: required(commandText),
    periodSeconds: seconds(1),
    timeoutSeconds: seconds(1),
    initialDelaySeconds: seconds(0),
    successThreshold: numberIn(1, 100, true),
    failureThreshold: numberIn(1, 100, true),
  }),
  setup: object('setup', { image: required(str), commands: required(commandText) }),
  shared_host_network: notRun(
    'services are reached by their names on the build network, not on localhost',
    'ignored',
    bool,
  ),
});

/** Pipeline level: one block, or a list of them. */
export const rootServices: Schema = union([
  { when: isPlainMap, schema: servicesBlock },
  { when: isList, schema: list(servicesBlock) },
]);

/** Step level: an inline block, or the names of pipeline-level blocks. */
export const stepServices: Schema = union([
  { when: isPlainMap, schema: servicesBlock },
  { when: isList, schema: list(str) },
]);
