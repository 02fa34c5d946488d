/**
 * The plain value of one YAML document that someone else wrote (the CLI's manifests, patches
 * and values files), or the first reason it has none, with where it is: a syntax error, or a
 * shape that would make the conversion crash or hang (an alias bomb, an alias to nothing,
 * nesting that exhausts the stack), found by the structure check before any conversion. The
 * `yaml` library's own conversion throws a bare `ReferenceError` on an alias bomb instead.
 * @module
 */
import type { Document } from 'yaml';
import { toPlainValue } from './yaml-plain-value.js';
import { checkYamlStructure } from './yaml-structure.js';

export type YamlDocumentValue =
  | { ok: true; value: unknown }
  | {
      ok: false;
      /** Offset into the YAML text. */
      offset: number;
      message: string;
    };

export function yamlDocumentValue(doc: Document): YamlDocumentValue {
  const syntax = doc.errors[0];
  if (syntax !== undefined)
    return { ok: false, offset: syntax.pos[0], message: firstLine(syntax.message) };
  const problem = checkYamlStructure(doc)[0];
  if (problem !== undefined) return { ok: false, ...problem };
  let failure: string | undefined;
  const value = toPlainValue(doc, (message) => (failure ??= message));
  return failure === undefined ? { ok: true, value } : { ok: false, offset: 0, message: failure };
}

/** The parser's message without its `at line L, column C:` and the excerpt after it. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
