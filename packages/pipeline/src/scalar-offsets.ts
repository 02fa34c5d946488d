/**
 * Maps an offset inside a scalar's parsed value back to an offset in the YAML text, so an error
 * found inside a condition lands on the right character even when the scalar is quoted with
 * escapes, folded over several lines or written as a block (`|`, `>`).
 * @module
 */

export type ScalarStyle =
  'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL' | 'BLOCK_FOLDED';

export interface ScalarSource {
  /** The whole YAML text. */
  text: string;
  /** Where the scalar's source starts (its opening quote or block indicator) and ends. */
  start: number;
  end: number;
  style: ScalarStyle;
  /** The parsed value. */
  value: string;
}

/**
 * The text offset of the character at `valueOffset` in the value; an offset at or past the value's
 * end maps to just after its last character. A character YAML produced without a source
 * counterpart (a folded line break) maps to where it was produced.
 */
export function sourceOffset(scalar: ScalarSource, valueOffset: number): number {
  const target = Math.max(0, Math.min(valueOffset, scalar.value.length));
  let j = contentStart(scalar);
  for (let i = 0; i <= target && i < scalar.value.length; i++) {
    const found = findChar(scalar, j, scalar.value[i] ?? '');
    if (i === target) return found?.at ?? j;
    if (found !== undefined) j = found.next;
  }
  return j;
}

/** Where value character `c` comes from, searching from `j`: itself or an escape sequence. */
function findChar(
  { text, end, style }: ScalarSource,
  j: number,
  c: string,
): { at: number; next: number } | undefined {
  if (style === 'QUOTE_DOUBLE' && text[j] === '\\' && !isBreak(text[j + 1])) {
    return { at: j, next: j + escapeLength(text, j) };
  }
  // Skips what YAML folds away (indentation, line breaks, escaped breaks, doubled quotes).
  const k = text.indexOf(c, j);
  return k === -1 || k >= end ? undefined : { at: k, next: k + 1 };
}

function contentStart({ text, start, end, style }: ScalarSource): number {
  if (style === 'QUOTE_SINGLE' || style === 'QUOTE_DOUBLE') return start + 1;
  if (style === 'BLOCK_LITERAL' || style === 'BLOCK_FOLDED') {
    // The value starts on the line after the header (`|-`, `>2 # comment`).
    const newline = text.indexOf('\n', start);
    return newline === -1 || newline >= end ? end : newline + 1;
  }
  return start;
}

function isBreak(ch: string | undefined): boolean {
  return ch === '\n' || ch === '\r';
}

const ESCAPE_LENGTHS: Partial<Record<string, number>> = { x: 4, u: 6, U: 10 };

/** Length of the escape sequence at `j` in a double-quoted scalar (`\n`, `\x41`, `\u263A`…). */
function escapeLength(text: string, j: number): number {
  return ESCAPE_LENGTHS[text[j + 1] ?? ''] ?? 2;
}
