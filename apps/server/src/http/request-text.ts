/**
 * Text a request carries, checked once for every route before any handler runs. PostgreSQL
 * cannot store NUL in `text` nor NUL or an unpaired UTF-16 surrogate in `jsonb`, so such a
 * string used to reach the database and come back as a 500. Names, ids, paths, queries and
 * body fields are refused with a 400 naming each field. The engine's own reports (log lines
 * and events) carry whatever a program printed, so there they are made storable instead:
 * NUL becomes U+2400 (␀) and an unpaired surrogate U+FFFD. Invalid UTF-8 in a JSON body is
 * already U+FFFD when the body is decoded.
 * @module
 */
import { InputError } from '@sluice/errors';

export interface TextProblem {
  path: string;
  message: string;
}

/** Shown in place of a NUL in stored text: visible, and storable. */
export const NUL_REPLACEMENT = '\u2400';

const NUL_MESSAGE = 'Must not contain a NUL character (U+0000)';
const SURROGATE_MESSAGE = 'Must be valid Unicode: it holds an unpaired UTF-16 surrogate';
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE, 'g');
/** Enough to fix a request by; a body with thousands of bad strings need not list them all. */
const MAX_PROBLEMS = 50;

/** Every string (and object key) below `value` that cannot be stored, with its path. */
export function findTextProblems(value: unknown, path: string): TextProblem[] {
  const problems: TextProblem[] = [];
  walk(value, path, problems);
  return problems;
}

function walk(value: unknown, path: string, problems: TextProblem[]): void {
  if (typeof value === 'string') {
    const message = textProblem(value);
    if (message !== undefined) problems.push({ path, message });
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${path}.${index}`, problems));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = textProblem(key);
      const printable = keyProblem === undefined ? key : JSON.stringify(key).slice(1, -1);
      if (keyProblem !== undefined)
        problems.push({ path: `${path}.${printable}`, message: keyProblem });
      walk(item, `${path}.${printable}`, problems);
    }
  }
}

function textProblem(text: string): string | undefined {
  if (text.includes('\0')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(text)) return SURROGATE_MESSAGE;
  return undefined;
}

/** A character that may need replacing: NUL or any surrogate (most text has neither). */
const SUSPECT = /[\0\uD800-\uDFFF]/;

/**
 * `value` with every string (and key) made storable: NUL → ␀, unpaired surrogates → U+FFFD.
 * `value` itself when nothing needs it: a log chunk of thousands of plain lines is not copied.
 */
export function sanitiseText(value: unknown): unknown {
  return hasSuspectText(value) ? sanitiseAll(value) : value;
}

function hasSuspectText(value: unknown): boolean {
  if (typeof value === 'string') return SUSPECT.test(value);
  if (Array.isArray(value)) return value.some(hasSuspectText);
  if (isPlainObject(value)) {
    for (const key in value) if (SUSPECT.test(key) || hasSuspectText(value[key])) return true;
  }
  return false;
}

function sanitiseAll(value: unknown): unknown {
  if (typeof value === 'string') return sanitiseString(value);
  if (Array.isArray(value)) return value.map(sanitiseAll);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [sanitiseString(key), sanitiseAll(item)]),
    );
  }
  return value;
}

function sanitiseString(text: string): string {
  return text.replaceAll('\0', NUL_REPLACEMENT).replace(LONE_SURROGATES, '\uFFFD');
}

/** JSON objects, and Fastify's params and query (whose prototypes are null-prototype objects). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !ArrayBuffer.isView(value);
}

/** Throws `SLUICE_REQUEST_INVALID` naming every field of `parts` that holds unstorable text. */
export function assertStorableText(parts: Record<string, unknown>): void {
  const problems = Object.entries(parts)
    .flatMap(([where, value]) => findTextProblems(value, where))
    .slice(0, MAX_PROBLEMS);
  if (problems.length === 0) return;
  throw new InputError(
    'SLUICE_REQUEST_INVALID',
    `Invalid request: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    { details: { problems } },
  );
}
