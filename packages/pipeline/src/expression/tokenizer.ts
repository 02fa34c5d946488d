/**
 * Hand-written tokenizer for condition expressions. It never throws: a lexical error becomes a
 * final `invalid` token, so the parser reports whichever error comes first in the source.
 * @module
 */

export const PUNCTUATORS = [
  '==',
  '!=',
  '>=',
  '<=',
  '&&',
  '||',
  '>',
  '<',
  '!',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  ',',
] as const;

export type Punctuator = (typeof PUNCTUATORS)[number];

interface TokenSpan {
  readonly start: number;
  readonly end: number;
}

export type Token =
  | (TokenSpan & { readonly type: 'number'; readonly value: number })
  | (TokenSpan & { readonly type: 'string'; readonly value: string })
  | (TokenSpan & { readonly type: 'identifier'; readonly path: readonly string[] })
  | (TokenSpan & { readonly type: 'punctuator'; readonly value: Punctuator })
  | (TokenSpan & { readonly type: 'invalid'; readonly message: string })
  | (TokenSpan & { readonly type: 'end' });

/**
 * Operators people bring from other languages, with the message that points them home. The
 * strict ones are checked before the real punctuators, the single characters after them.
 */
const STRICT_EQUALITY: readonly (readonly [string, string])[] = [
  ['===', 'Unexpected "==="; use "=="'],
  ['!==', 'Unexpected "!=="; use "!="'],
];
const SINGLE_CHARACTER_MISTAKES: Readonly<Record<string, string>> = {
  '=': 'Unexpected "="; did you mean "=="?',
  '&': 'Unexpected "&"; did you mean "&&"?',
  '|': 'Unexpected "|"; did you mean "||"?',
};

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
  v: '\v',
  '0': '\0',
};

type Scan = { ok: true; token: Token } | { ok: false; offset: number; message: string };

/** Splits `source` into tokens, always ending with an `end` or an `invalid` token. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let pos = skipWhitespace(source, 0);
  while (pos < source.length) {
    const scan = scanToken(source, pos);
    if (!scan.ok) {
      tokens.push({ type: 'invalid', message: scan.message, start: scan.offset, end: scan.offset });
      return tokens;
    }
    tokens.push(scan.token);
    pos = skipWhitespace(source, scan.token.end);
  }
  tokens.push({ type: 'end', start: source.length, end: source.length });
  return tokens;
}

function skipWhitespace(source: string, from: number): number {
  let pos = from;
  while (pos < source.length && /\s/.test(source[pos] ?? '')) pos++;
  return pos;
}

function scanToken(source: string, start: number): Scan {
  const ch = source[start] ?? '';
  if (ch === '"' || ch === "'") return scanString(source, start);
  if (isDigit(ch)) return scanNumber(source, start);
  if (isNameStart(ch)) return scanIdentifier(source, start);
  return scanPunctuator(source, start);
}

function scanPunctuator(source: string, start: number): Scan {
  for (const [text, message] of STRICT_EQUALITY) {
    if (source.startsWith(text, start)) return { ok: false, offset: start, message };
  }
  const punctuator = PUNCTUATORS.find((p) => source.startsWith(p, start));
  if (punctuator === undefined) {
    const char = String.fromCodePoint(source.codePointAt(start) ?? 0);
    const message =
      SINGLE_CHARACTER_MISTAKES[char] ?? `Unexpected character ${JSON.stringify(char)}`;
    return { ok: false, offset: start, message };
  }
  const end = start + punctuator.length;
  return { ok: true, token: { type: 'punctuator', value: punctuator, start, end } };
}

/** Integers and decimals. Anything glued on (`12abc`, `1.2.3`, `1.`) is one invalid number. */
function scanNumber(source: string, start: number): Scan {
  let pos = start;
  while (isDigit(source[pos])) pos++;
  if (source[pos] === '.' && isDigit(source[pos + 1])) {
    pos += 2;
    while (isDigit(source[pos])) pos++;
  }
  if (source[pos] === '.' || isNameChar(source[pos])) {
    let end = pos;
    while (source[end] === '.' || isNameChar(source[end])) end++;
    return { ok: false, offset: start, message: `Invalid number "${source.slice(start, end)}"` };
  }
  return {
    ok: true,
    token: { type: 'number', value: Number(source.slice(start, pos)), start, end: pos },
  };
}

/**
 * Dotted names made of `[A-Za-z_][A-Za-z0-9_-]*` segments. A `-` belongs to the name only when a
 * name character follows it, so `build-image` is one name but `a - b` and `a- b` subtract.
 */
function scanIdentifier(source: string, start: number): Scan {
  const path: string[] = [];
  let pos = start;
  for (;;) {
    const segmentStart = pos;
    pos = scanSegment(source, pos);
    path.push(source.slice(segmentStart, pos));
    if (source[pos] !== '.') break;
    if (!isNameStart(source[pos + 1])) {
      const message = `Expected a name after "${source.slice(start, pos + 1)}"`;
      return { ok: false, offset: pos + 1, message };
    }
    pos++;
  }
  return { ok: true, token: { type: 'identifier', path, start, end: pos } };
}

function scanSegment(source: string, start: number): number {
  let pos = start + 1;
  for (;;) {
    if (isNameChar(source[pos])) {
      pos++;
      continue;
    }
    let dashes = pos;
    while (source[dashes] === '-') dashes++;
    if (dashes === pos || !isNameChar(source[dashes])) return pos;
    pos = dashes;
  }
}

function scanString(source: string, start: number): Scan {
  const quote = source[start];
  let value = '';
  let pos = start + 1;
  while (pos < source.length) {
    const ch = source[pos] ?? '';
    if (ch === quote) {
      return { ok: true, token: { type: 'string', value, start, end: pos + 1 } };
    }
    if (ch !== '\\') {
      value += ch;
      pos++;
      continue;
    }
    const escape = readEscape(source, pos);
    if (escape === undefined) break;
    if (!escape.ok) return escape;
    value += escape.text;
    pos = escape.end;
  }
  return { ok: false, offset: start, message: 'Unterminated string' };
}

type Escape =
  { ok: true; text: string; end: number } | { ok: false; offset: number; message: string };

/**
 * Reads the escape at `pos` (a backslash), JavaScript style: unknown escapes such as `\d` stand for
 * the character itself. Returns undefined when the source ends inside the escape.
 */
function readEscape(source: string, pos: number): Escape | undefined {
  const next = source[pos + 1];
  if (next === undefined) return undefined;
  if (next !== 'u') return { ok: true, text: SIMPLE_ESCAPES[next] ?? next, end: pos + 2 };
  const hex = source.slice(pos + 2, pos + 6);
  if (!/^[0-9A-Fa-f]{4}$/.test(hex)) {
    const shown = source.slice(pos, pos + 6).replace(/["'\s].*$/s, '');
    return { ok: false, offset: pos, message: `Invalid escape sequence "${shown}"` };
  }
  return { ok: true, text: String.fromCharCode(parseInt(hex, 16)), end: pos + 6 };
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= '0' && ch <= '9';
}

function isNameStart(ch: string | undefined): boolean {
  return ch !== undefined && /^[A-Za-z_]$/.test(ch);
}

function isNameChar(ch: string | undefined): boolean {
  return ch !== undefined && /^[A-Za-z0-9_]$/.test(ch);
}
