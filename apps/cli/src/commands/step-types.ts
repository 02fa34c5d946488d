/**
 * `sluice create step-type -f FILE` (registers a step-type document in the control plane; its
 * problems come back with line:column) and `sluice get step-types [-o yaml|json]`.
 * @module
 */
import type { Terminal } from '../ui/terminal.js';
import { issuesOf, readDocument } from './document-file.js';
import { printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

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

export async function getStepTypes(
  term: Terminal,
  options: ServerOptions & { output: OutputFormat },
): Promise<number> {
  const { items } = await serverClient(options).call('listStepTypes');
  printResources(term, items, options.output, {
    header: ['NAME', 'VERSION', 'CREATED BY', 'CREATED'],
    row: (s) => [s.name, s.version, s.createdBy ?? '', s.createdAt],
  });
  return 0;
}
