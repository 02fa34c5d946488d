/**
 * `sluice create step-type -f FILE` (registers a step-type document in the control plane; its
 * problems come back with line:column) and `sluice get step-types [-o yaml|json]`.
 * @module
 */
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { InputError, isSluiceError } from '@sluice/errors';
import { createClient } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { formatTable } from '../ui/terminal.js';
import type { ServerOptions } from './registries.js';
import type { OutputFormat } from './runtime-environments.js';

export async function createStepType(
  term: Terminal,
  file: string,
  options: ServerOptions,
): Promise<number> {
  const yaml = readDocument(file);
  const client = createClient({ baseUrl: options.server, token: options.token });
  try {
    const stepType = await client.call('putStepType', { body: { yaml } });
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
  const client = createClient({ baseUrl: options.server, token: options.token });
  const { items } = await client.call('listStepTypes');
  if (options.output === 'json') term.out(JSON.stringify(items, null, 2));
  else if (options.output === 'yaml') term.out(stringify(items).trimEnd());
  else {
    const rows = items.map((s) => [s.name, s.version, s.createdBy ?? '', s.createdAt]);
    for (const line of formatTable([['NAME', 'VERSION', 'CREATED BY', 'CREATED'], ...rows]))
      term.out(line);
  }
  return 0;
}

function readDocument(file: string): string {
  try {
    return file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError('SLUICE_CLI_FILE_UNREADABLE', `Cannot read ${file}`, {
      cause: err,
      hint: 'Check the path given to -f',
    });
  }
}

interface Issue {
  line: number;
  column: number;
  message: string;
}

function issuesOf(err: unknown): Issue[] | undefined {
  if (!isSluiceError(err)) return undefined;
  const details = err.details?.details as { issues?: Issue[] } | undefined;
  return Array.isArray(details?.issues) ? details.issues : undefined;
}
