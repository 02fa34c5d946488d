/**
 * Turns a document that passed validation into the typed `Pipeline`.
 * @module
 */
import type {
  ConditionExpression,
  FreestyleStep,
  GitCloneStep,
  Pipeline,
  Position,
  Step,
  StepWhen,
} from './model.js';
import type { YamlSource } from './yaml-source.js';
import { scalarText } from './schema/validators.js';

type Raw = Record<string, unknown>;

/** `fail_fast` and friends: a boolean or its string; the map form keeps the default. */
const asBool = (value: unknown, fallback: boolean) =>
  typeof value === 'boolean'
    ? value
    : value === 'true' || value === 'false'
      ? value === 'true'
      : fallback;

const asList = (value: unknown): string[] | undefined =>
  value === undefined
    ? undefined
    : Array.isArray(value)
      ? value.map(scalarText)
      : [scalarText(value)];

const optionalString = (value: unknown): string | undefined =>
  value === undefined || value === null ? undefined : scalarText(value);

export function buildPipeline(root: Raw, source: YamlSource): Pipeline {
  const failFast = asBool(root.fail_fast, true);
  const steps = Object.entries(root.steps as Raw).map(([name, raw]) =>
    buildStep(name, raw as Raw, failFast, source),
  );
  return {
    file: source.file,
    version: '1.0',
    stages: (root.stages as unknown[] | undefined)?.map(String) ?? [],
    failFast,
    steps,
  };
}

function buildStep(name: string, raw: Raw, rootFailFast: boolean, source: YamlSource): Step {
  const path = ['steps', name];
  const base = {
    name,
    title: optionalString(raw.title),
    description: optionalString(raw.description),
    stage: optionalString(raw.stage),
    workingDirectory: optionalString(raw.working_directory),
    failFast: asBool(raw.fail_fast, rootFailFast),
    when: buildWhen(raw.when as Raw | null | undefined, [...path, 'when'], source),
    position: source.locate(path, 'key'),
  };
  if (raw.type === 'git-clone') return buildGitClone(base, raw);
  return buildFreestyle(base, raw);
}

type Base = Omit<Step, 'type'>;

function buildFreestyle(base: Base, raw: Raw): FreestyleStep {
  return {
    ...base,
    type: 'freestyle',
    image: String(raw.image),
    commands: asList(raw.commands),
    cmd: asList(raw.cmd),
    entryPoint: asList(raw.entry_point),
    shell: raw.shell === 'bash' ? 'bash' : 'sh',
    environment: environmentPairs(raw.environment),
    volumes: asList(raw.volumes) ?? [],
  };
}

function buildGitClone(base: Base, raw: Raw): GitCloneStep {
  const credentials = raw.credentials as Raw | undefined;
  return {
    ...base,
    type: 'git-clone',
    repo: String(raw.repo),
    revision: optionalString(raw.revision),
    depth: raw.depth === undefined ? undefined : Number(raw.depth),
    credentials: credentials
      ? { username: scalarText(credentials.username), password: scalarText(credentials.password) }
      : undefined,
    useProxy: asBool(raw.use_proxy, false),
  };
}

export function environmentPairs(value: unknown): [string, string][] {
  if (Array.isArray(value)) {
    return value.map((entry) => {
      const text = String(entry);
      const eq = text.indexOf('=');
      return [text.slice(0, eq), text.slice(eq + 1)];
    });
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).map(([k, v]) => [k, v === null ? '' : String(v)]);
  }
  return [];
}

function buildWhen(
  raw: Raw | null | undefined,
  path: (string | number)[],
  source: YamlSource,
): StepWhen | undefined {
  if (raw === undefined || raw === null) return undefined;
  const when: StepWhen = {};
  const branch = raw.branch as Raw | undefined;
  if (branch) when.branch = { only: asList(branch.only), ignore: asList(branch.ignore) };
  const condition = raw.condition as Raw | undefined;
  if (condition) {
    when.conditions = (['all', 'any'] as const)
      .filter((mode) => condition[mode] !== undefined)
      .map((mode) => ({
        mode,
        expressions: Object.entries(condition[mode] as Raw).map(
          ([name, text]): ConditionExpression => {
            const exprPath = [...path, 'condition', mode, name];
            const start = source.scalarStart(exprPath);
            const position: Position | undefined = start
              ? { line: start.line, column: start.column }
              : undefined;
            return { name, source: String(text), position, path: exprPath };
          },
        ),
      }));
  }
  return when;
}
