/**
 * Compose-style service containers (reference §5.3 composition, §5.7 services): the inline
 * composition map, the `services:` blocks of the pipeline and of a step, with their readiness
 * probe and setup container. Compositions kept in files or stored in Codefresh are refused by
 * name, since Sluice reads only the pipeline file.
 * @module
 */
import { ISSUE_CODES } from '../pipeline-issue.js';
import { commandText, environment, isList, isString } from './common-fields.js';
import {
  isPlainMap,
  list,
  numberIn,
  object,
  record,
  required,
  str,
  typeName,
  union,
  unsupported,
} from './validators.js';
import type { Schema } from './validators.js';
import type { IssuePath } from '../pipeline-issue.js';

/** Compose keys Sluice knows but does not run; anything else is a typo. */
const UNSUPPORTED_COMPOSE_KEYS = [
  'build',
  'container_name',
  'depends_on',
  'expose',
  'healthcheck',
  'hostname',
  'labels',
  'links',
  'networks',
  'privileged',
  'restart',
  'user',
];

export const composeService = object('compose service', {
  image: required(str),
  command: commandText,
  entrypoint: commandText,
  environment,
  working_dir: str,
  volumes: list(str),
  ports: list(str),
  ...Object.fromEntries(UNSUPPORTED_COMPOSE_KEYS.map((key) => [key, unsupported()])),
});

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

const composeFile = object('composition', {
  version: str,
  services: record(composeService, 'a map of services'),
  volumes: unsupported(),
  networks: unsupported(),
});

export const composition: Schema = {
  describe: 'a map of services',
  check(value, path, ctx) {
    if (isString(value)) {
      const message = `Composition ${JSON.stringify(String(value))} is a file or a stored composition; Sluice runs only compositions written inline as a map of services`;
      ctx.report(path, message, { code: ISSUE_CODES.unsupported });
      return;
    }
    if (!isPlainMap(value)) {
      ctx.report(path, `"composition" must be a map of services, got ${typeName(value)}`);
      return;
    }
    if (isComposeFile(value)) composeFile.check(value, path, ctx);
    else record(composeService, 'a map of services').check(value, path, ctx);
    if (composeServiceEntries(value, path).length === 0) {
      ctx.report(path, '"composition" must hold at least one service');
    }
  },
};

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
