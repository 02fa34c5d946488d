/**
 * `sluice create step-type -f FILE` (registers a step-type document in the control plane; its
 * problems come back with line:column), `sluice get step-types [NAME[:VERSION]] [-o yaml|json]`
 * (the account's own and the built-in ones, with their origin) and `sluice describe step-type
 * NAME[:VERSION]` (its arguments and steps, read from the document).
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import type { StepType } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { issuesOf, readDocument } from './document-file.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';
import { stepTypeDescription } from './step-type-description.js';

const TABLE = {
  header: ['NAME', 'VERSION', 'ORIGIN', 'DESCRIPTION'],
  row: (s: StepType) => [s.name, s.version, s.origin, s.description ?? ''],
  wide: {
    header: ['CREATED BY', 'CREATED'],
    row: (s: StepType) => [s.createdBy ?? '', s.createdAt ?? ''],
  },
};

export async function createStepType(
  term: Terminal,
  file: string,
  options: ServerOptions,
): Promise<number> {
  const yaml = readDocument(file);
  try {
    const stepType = await serverClient(options).call('putStepType', { body: { yaml } });
    term.out(`step-type/${stepType.name}:${stepType.version} registered`);
    return 0;
  } catch (err) {
    // The server names each problem at line:column of the document: show them at the file.
    const issues = issuesOf(err);
    if (issues === undefined) throw err;
    for (const issue of issues)
      term.err(term.paint('red', `${file}:${issue.line}:${issue.column}: ${issue.message}`));
    throw err;
  }
}

/** Every step type; with `ref`, the versions of one (`NAME`), or one version (`NAME:VERSION`). */
export async function getStepTypes(
  term: Terminal,
  ref: string | undefined,
  options: ServerOptions & { output: OutputFormat; columns?: number },
): Promise<number> {
  const value =
    ref === undefined
      ? (await serverClient(options).call('listStepTypes')).items
      : await stepTypeVersions(ref, options);
  // NAME:VERSION names one resource: YAML and JSON show it alone, as kubectl does.
  const one = ref?.includes(':') === true ? value[0] : undefined;
  printResources(term, one ?? value, options.output, TABLE, options);
  return 0;
}

export async function describeStepType(
  term: Terminal,
  ref: string,
  options: ServerOptions & { columns?: number },
): Promise<number> {
  const versions = await stepTypeVersions(ref, options);
  for (const [i, stepType] of versions.entries()) {
    if (i > 0) term.out('');
    for (const line of stepTypeDescription(stepType, options.columns)) term.out(line);
  }
  return 0;
}

/** The versions of `NAME`, or the one of `NAME:VERSION`; 404 naming the versions there are. */
async function stepTypeVersions(ref: string, options: ServerOptions): Promise<StepType[]> {
  const [name = ref, version] = ref.split(':');
  const { items } = await serverClient(options).call('getStepType', { params: { name } });
  if (version === undefined) return items;
  const found = items.filter((s) => s.version === version);
  if (found.length > 0) return found;
  throw new NotFoundError(
    'SLUICE_STEP_TYPE_NOT_FOUND',
    `Step type ${name} has no version ${version} (it has ${items.map((s) => s.version).join(', ')})`,
    { hint: `sluice get step-type ${name}` },
  );
}
