/**
 * What `sluice describe step-type` prints for one version: its origin, its arguments (type,
 * default, required, description) and the steps of its template with their images, read from
 * the document the control plane returned.
 * @module
 */
import { parseStepTypeDocument } from '@sluice/pipeline';
import type { ArgumentSchema } from '@sluice/pipeline';
import type { StepType } from '@sluice/protocol';
import { fitTable } from '../ui/terminal.js';

const ORIGINS: Record<StepType['origin'], string> = {
  'built-in': 'built-in (shipped by the control plane from step-types/)',
  account: 'account (registered with sluice create step-type)',
};

/** The lines of one step type's description, fitted to `columns`. */
export function stepTypeDescription(stepType: StepType, columns = 100): string[] {
  const fields: [string, string][] = [
    ['Name', stepType.name],
    ['Version', stepType.version],
    ['Origin', ORIGINS[stepType.origin]],
    ['Description', stepType.description ?? '-'],
    [
      'Created',
      stepType.createdAt === null ? '-' : `${stepType.createdAt} by ${stepType.createdBy ?? '-'}`,
    ],
  ];
  const width = Math.max(...fields.map(([key]) => key.length)) + 2;
  const lines = fields.map(([key, value]) => `${`${key}:`.padEnd(width)}${value}`);
  const parsed = parseStepTypeDocument(stepType.yaml, `${stepType.name}:${stepType.version}`);
  if (!parsed.ok)
    return [...lines, `Document:     does not parse (${parsed.issues[0]?.message ?? 'no reason'})`];
  const { argumentsSchema, steps } = parsed.definition;
  const table = (rows: string[][]) => fitTable(rows, columns - 2).map((line) => `  ${line}`);
  const argumentsTable = argumentRows(argumentsSchema);
  return [
    ...lines,
    '',
    'Arguments:',
    ...(argumentsTable.length === 0
      ? ['  (none)']
      : table([['NAME', 'TYPE', 'DEFAULT', 'REQUIRED', 'DESCRIPTION'], ...argumentsTable])),
    '',
    'Steps:',
    ...table([['NAME', 'IMAGE'], ...stepRows(steps)]),
  ];
}

function argumentRows(schema: ArgumentSchema): string[][] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, argument]) => [
    name,
    argument.type?.join('|') ?? 'any',
    argument.default === undefined ? '' : JSON.stringify(argument.default),
    required.has(name) ? 'yes' : '',
    argument.description ?? '',
  ]);
}

function stepRows(steps: Record<string, unknown>): string[][] {
  return Object.entries(steps).map(([name, step]) => {
    const image = (step as { image?: unknown; type?: unknown }).image;
    const type = (step as { type?: unknown }).type;
    return [
      name,
      typeof image === 'string' ? image : typeof type === 'string' ? `(type ${type})` : '-',
    ];
  });
}
