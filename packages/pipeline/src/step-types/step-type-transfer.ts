/**
 * A parsed step type as plain data, and back: what a worker thread that parsed a document hands
 * to the thread that uses it. Structured clone carries no functions, and an argument's `pattern`
 * is a compiled linear-time regex, so patterns travel as source and flags and are compiled again
 * on arrival (a few small patterns, where the document's YAML may have taken seconds). The
 * document received is remembered as parsed (`rememberParsedStepType`): expanding a typed step
 * with it does not read its text again.
 * @module
 */
import { InternalError } from '@sluice/errors';
import { compileLinearRegex } from '../linear-regex.js';
import type { LinearRegex } from '../linear-regex.js';
import type { ArgumentSchema } from './argument-schema.js';
import { rememberParsedStepType } from './expand-typed-step.js';
import type { StepTypeDocument } from './parse-step-type-document.js';

/** An argument schema whose patterns are `P`. */
export type SchemaWith<P> = Omit<
  ArgumentSchema,
  'pattern' | 'properties' | 'items' | 'additionalProperties'
> & {
  pattern?: P;
  properties?: Record<string, SchemaWith<P>>;
  items?: SchemaWith<P>;
  additionalProperties?: boolean | SchemaWith<P>;
};

/** A pattern as source and flags. */
export interface PatternData {
  source: string;
  flags: string;
}

/** A parsed step type that survives a structured clone. */
export interface StepTypeData extends Omit<StepTypeDocument, 'argumentsSchema'> {
  argumentsSchema: SchemaWith<PatternData>;
}

export function stepTypeToData(document: StepTypeDocument): StepTypeData {
  const toData = ({ source, flags }: LinearRegex): PatternData => ({ source, flags });
  return { ...document, argumentsSchema: mapPatterns(document.argumentsSchema, toData) };
}

/** The document `data` came from, remembered as parsed. */
export function stepTypeFromData(data: StepTypeData): StepTypeDocument {
  const argumentsSchema: ArgumentSchema = mapPatterns(data.argumentsSchema, compilePattern);
  return rememberParsedStepType({ ...data, argumentsSchema });
}

function mapPatterns<P, Q>(schema: SchemaWith<P>, map: (pattern: P) => Q): SchemaWith<Q> {
  const { pattern, properties, items, additionalProperties, ...rest } = schema;
  const mapped: SchemaWith<Q> = { ...rest };
  if (pattern !== undefined) mapped.pattern = map(pattern);
  if (properties !== undefined)
    mapped.properties = Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, mapPatterns(value, map)]),
    );
  if (items !== undefined) mapped.items = mapPatterns(items, map);
  if (additionalProperties !== undefined)
    mapped.additionalProperties =
      typeof additionalProperties === 'boolean'
        ? additionalProperties
        : mapPatterns(additionalProperties, map);
  return mapped;
}

function compilePattern({ source, flags }: PatternData): LinearRegex {
  const compiled = compileLinearRegex(source, flags);
  // It compiled where the document was parsed, and the same engine reads it the same way here.
  if (!compiled.ok)
    throw new InternalError(
      'SLUICE_INTERNAL',
      `Step-type pattern /${source}/${flags} compiled in a worker but not here: ${compiled.reason}`,
    );
  return compiled.regex;
}
