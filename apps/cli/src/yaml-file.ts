/**
 * YAML that people hand the CLI (`apply -f`, `patch runtime-environment -f`, runner values
 * files): each document's plain value, or the first problem as `FILE:LINE:COLUMN: message`,
 * never an exception from the library. An alias bomb, an alias to nothing or nesting deep
 * enough to exhaust the stack is a problem of the file like a syntax error is (the library
 * would throw a bare `ReferenceError` or `RangeError`).
 * @module
 */
import { positionIndex } from '@sluice/errors';
import { yamlDocumentValue } from '@sluice/pipeline';
import type { Document, LineCounter } from 'yaml';
import { yaml } from './lazy-yaml.js';

export type YamlFileResult<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface YamlFileDocument {
  doc: Document;
  value: unknown;
}

/** Every document in `text`, in order (none for an empty file). */
export function readYamlDocuments(
  text: string,
  file: string,
  options: { lineCounter?: LineCounter } = {},
): YamlFileResult<YamlFileDocument[]> {
  const docs = yaml().parseAllDocuments(text, { ...options, prettyErrors: false });
  const documents: YamlFileDocument[] = [];
  for (const doc of Array.isArray(docs) ? docs : []) {
    const read = yamlDocumentValue(doc);
    if (!read.ok) return { ok: false, problem: located(text, file, read) };
    documents.push({ doc, value: read.value });
  }
  return { ok: true, value: documents };
}

/** The one document of `text` (null for an empty file). */
export function readYamlDocument(text: string, file: string): YamlFileResult<unknown> {
  const read = yamlDocumentValue(yaml().parseDocument(text, { prettyErrors: false }));
  return read.ok ? read : { ok: false, problem: located(text, file, read) };
}

function located(text: string, file: string, problem: { offset: number; message: string }) {
  const { line, column } = positionIndex(text)(problem.offset);
  return `${file}:${line}:${column}: ${problem.message}`;
}
