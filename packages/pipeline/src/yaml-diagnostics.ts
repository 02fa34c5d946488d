/**
 * Turns the YAML parser's errors into issues a person can act on: the common mistakes (bad
 * indentation, a duplicate key, a tab, a second document) get a message naming the key, the
 * position moves from leading whitespace to the token, and the follow-on errors one mistake
 * causes on the same line are dropped.
 * @module
 */
import { positionIndex } from '@sluice/errors';
import type { TextPosition } from '@sluice/errors';
import { DuplicateKeyError } from './yaml-duplicate-keys.js';
import type { ErrorCode, YAMLError } from 'yaml';

export interface YamlDiagnostic {
  severity: 'error' | 'warning';
  offset: number;
  message: string;
}

export function describeYamlProblems(
  text: string,
  errors: readonly YAMLError[],
  warnings: readonly YAMLError[],
): YamlDiagnostic[] {
  // A key read across two lines explains the other errors inside it; keep only that one.
  const spanning = errors.filter(
    (e) => e.code === 'MULTILINE_IMPLICIT_KEY' && text.slice(e.pos[0], e.pos[1]).includes('\n'),
  );
  const exhausted = errors.find((e) => e.code === 'RESOURCE_EXHAUSTION');
  const explained = (e: YAMLError) =>
    (e.code === 'RESOURCE_EXHAUSTION' && e !== exhausted) ||
    (!spanning.includes(e) && spanning.some((s) => e.pos[0] >= s.pos[0] && e.pos[0] < s.pos[1]));
  const all: YamlDiagnostic[] = [
    ...errors.filter((e) => !explained(e)).map((e) => diagnose(text, e, 'error')),
    ...warnings.map((w) => diagnose(text, w, 'warning')),
  ];
  all.sort((a, b) => a.offset - b.offset);
  lastIndex = undefined;
  const seenLines = new Set<number>();
  return all.filter((d) => {
    if (d.severity === 'warning') return true;
    const line = lineStartOf(text, d.offset);
    if (seenLines.has(line)) return false;
    seenLines.add(line);
    return true;
  });
}

type Located = Omit<YamlDiagnostic, 'severity'>;

type Rewrite = (text: string, problem: YAMLError, original: string) => Located;

/** The parser's wording for the mistakes people make most, rewritten to name the key. */
const REWRITES: Partial<Record<ErrorCode, Rewrite>> = {
  DUPLICATE_KEY: (text, problem) => {
    const from = problem.pos[0];
    const key = keyAt(text, from);
    const first =
      problem instanceof DuplicateKeyError
        ? `; it is also at ${lineColumn(text, problem.firstOffset)}`
        : '';
    return {
      offset: from,
      message: key ? `Duplicate key "${key}"${first}` : `Duplicate key in map${first}`,
    };
  },
  TAB_AS_INDENT: (_, { pos: [from] }) => ({
    offset: from,
    message: 'Tab character used for indentation; indent with spaces',
  }),
  MULTIPLE_DOCS: (_, { pos: [from] }) => ({
    offset: from,
    message: 'A pipeline file holds one YAML document; found a second "---"',
  }),
  BAD_INDENT: (text, { pos: [from] }, original) => badIndent(text, from, original),
  MULTILINE_IMPLICIT_KEY: (text, { pos: [from, to] }, original) =>
    continuedLine(text, from, to, original),
  BLOCK_AS_IMPLICIT_KEY: (text, { pos: [from] }, original) => blockAsKey(text, from, original),
  // The parser ran out of stack; where that happens depends on the caller's stack depth.
  RESOURCE_EXHAUSTION: (_, { pos: [from] }) => ({
    offset: from,
    message: 'Values are nested too deeply to read',
  }),
};

function diagnose(text: string, problem: YAMLError, severity: 'error' | 'warning'): YamlDiagnostic {
  const original = problem.message.split('\n')[0] ?? problem.message;
  const rewrite = REWRITES[problem.code];
  if (rewrite !== undefined) return { severity, ...rewrite(text, problem, original) };
  return { severity, offset: skipIndentation(text, problem.pos[0]), message: original };
}

/** The parser places a bad indentation at the blank lines before the key: point at the key. */
function badIndent(text: string, from: number, original: string): Located {
  const offset = skipBlankLines(text, from);
  const key = keyAt(text, offset);
  if (key !== undefined && original.startsWith('All mapping items')) {
    const column = offset - lineStartOf(text, offset) + 1;
    const sibling = previousKeyColumn(text, offset);
    const where =
      sibling !== undefined && sibling !== column
        ? `: it is at column ${column}, the key above it at column ${sibling}`
        : '';
    return {
      offset,
      message: `Key "${key}" is not indented like the other keys of its map${where}`,
    };
  }
  return { offset, message: original };
}

/** From the start of a line, past blank lines and comment lines, to the first token. */
function skipBlankLines(text: string, offset: number): number {
  let k = skipIndentation(text, offset);
  for (;;) {
    const line = /^[ \t]*(#[^\n]*)?\r?\n/.exec(text.slice(k, k + 10_000));
    if (line === null || k !== lineStartOf(text, k)) break;
    k += line[0].length;
  }
  return skipIndentation(text, k);
}

/** The column of the nearest key above `offset` (blank and comment lines skipped). */
function previousKeyColumn(text: string, offset: number): number | undefined {
  let end = lineStartOf(text, offset) - 1;
  while (end > 0) {
    const start = lineStartOf(text, end);
    const line = text.slice(start, end);
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    if (line.trim() !== '' && !line.trim().startsWith('#')) {
      return keyAt(text, start + indent) === undefined ? undefined : indent + 1;
    }
    end = start - 1;
  }
  return undefined;
}

/** One index per text, however many duplicate keys it holds. */
let lastIndex: { text: string; locate: (offset: number) => TextPosition } | undefined;

function lineColumn(text: string, offset: number): string {
  if (lastIndex?.text !== text) lastIndex = { text, locate: positionIndex(text) };
  const { line, column } = lastIndex.locate(offset);
  return `line ${line}, column ${column}`;
}

/**
 * `image: alpine` followed by a line indented too far reads as one key spanning two lines; point
 * at the second line, where the mistake is.
 */
function continuedLine(text: string, from: number, to: number, original: string): Located {
  const lastBreak = text.lastIndexOf('\n', to - 1);
  if (lastBreak < from) return { offset: from, message: original };
  const offset = skipIndentation(text, lastBreak + 1);
  const token = /^[^\s:#]+/.exec(text.slice(offset))?.[0] ?? '';
  return {
    offset,
    message: `"${token}" continues the line above; check its indentation`,
  };
}

function blockAsKey(text: string, from: number, original: string): Located {
  const offset = skipIndentation(text, from);
  if (original.startsWith('Nested mappings')) {
    const message = 'A value holding ": " must be quoted or written as a block scalar (|-)';
    return { offset, message };
  }
  const item = /^- [^\n]*/.exec(text.slice(offset))?.[0];
  if (item === undefined) return { offset, message: original };
  return { offset, message: `"${item.trim()}" is not indented like the lines above it` };
}

/** Moves an offset inside a line's leading spaces to the first character after them. */
function skipIndentation(text: string, offset: number): number {
  const lineStart = lineStartOf(text, offset);
  if (!/^ *$/.test(text.slice(lineStart, offset))) return offset;
  let k = offset;
  while (text[k] === ' ') k++;
  return k < text.length && text[k] !== '\n' && text[k] !== '\r' ? k : offset;
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The key written at `offset`: a plain word up to `:`, or a quoted string. */
function keyAt(text: string, offset: number): string | undefined {
  const rest = text.slice(offset, offset + 200);
  const match =
    /^(?:"((?:[^"\\\n]|\\.)*)"|'((?:[^'\n]|'')*)'|([^\s:#[\]{},][^:#\n]*?))\s*:(?:\s|$)/.exec(rest);
  if (match === null) return undefined;
  return match[1] ?? match[2]?.replace(/''/g, "'") ?? match[3];
}
