/**
 * ANSI SGR colours in a log line → styled segments: the 16 colours as classes (`ansi-fg-1`,
 * `ansi-bright-fg-2`), 256 and truecolour as inline colours, bold, dim, italic and underline.
 * Other escape sequences (cursor moves, erase) are dropped. Each line starts unstyled: the view
 * renders only the lines in sight, so a line must not depend on the ones above it.
 * @module
 */
export interface AnsiStyle {
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}

export interface AnsiSegment {
  text: string;
  style: AnsiStyle;
}

// CSI sequences (ESC [ … final byte) and the two-byte escapes; SGR is the one with final "m".
const ESC = String.fromCharCode(27);
const ESCAPES = new RegExp(`${ESC}\\[([0-9;?]*)([@-~])|${ESC}[@-Z\\\\-_]`, 'g');

export function parseAnsi(line: string): AnsiSegment[] {
  const segments: AnsiSegment[] = [];
  let style: AnsiStyle = {};
  let last = 0;
  for (const match of line.matchAll(ESCAPES)) {
    if (match.index > last) segments.push({ text: line.slice(last, match.index), style });
    last = match.index + match[0].length;
    if (match[2] === 'm') style = applySgr(style, match[1] ?? '');
  }
  if (last < line.length) segments.push({ text: line.slice(last), style });
  return segments;
}

export function stripAnsi(line: string): string {
  return line.replace(ESCAPES, '');
}

function applySgr(current: AnsiStyle, params: string): AnsiStyle {
  const codes = params === '' ? [0] : params.split(';').map((p) => Number(p) || 0);
  let style = { ...current };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i] ?? 0;
    if (code === 0) style = {};
    else if (code === 1) style.bold = true;
    else if (code === 2) style.dim = true;
    else if (code === 3) style.italic = true;
    else if (code === 4) style.underline = true;
    else if (code === 22) style.bold = style.dim = undefined;
    else if (code === 23) style.italic = undefined;
    else if (code === 24) style.underline = undefined;
    else if (code >= 30 && code <= 37) style.fg = `c${code - 30}`;
    else if (code >= 90 && code <= 97) style.fg = `c${code - 90 + 8}`;
    else if (code === 39) style.fg = undefined;
    else if (code >= 40 && code <= 47) style.bg = `c${code - 40}`;
    else if (code >= 100 && code <= 107) style.bg = `c${code - 100 + 8}`;
    else if (code === 49) style.bg = undefined;
    else if (code === 38 || code === 48) {
      const [colour, used] = extendedColour(codes, i + 1);
      if (colour !== undefined) style[code === 38 ? 'fg' : 'bg'] = colour;
      i += used;
    }
  }
  return style;
}

/** `5;n` (256 colours) or `2;r;g;b` after a 38 or 48: the colour and how many codes it took. */
function extendedColour(codes: number[], at: number): [string | undefined, number] {
  if (codes[at] === 5) {
    const n = codes[at + 1] ?? 0;
    return [n < 16 ? `c${n}` : `#${palette256(n)}`, 2];
  }
  if (codes[at] === 2) {
    const hex = [1, 2, 3].map((k) => (codes[at + k] ?? 0).toString(16).padStart(2, '0')).join('');
    return [`#${hex}`, 4];
  }
  return [undefined, 0];
}

function palette256(n: number): string {
  if (n >= 232) {
    const level = (8 + (n - 232) * 10).toString(16).padStart(2, '0');
    return level.repeat(3);
  }
  const i = n - 16;
  const steps = [0, 95, 135, 175, 215, 255];
  return [Math.floor(i / 36), Math.floor(i / 6) % 6, i % 6]
    .map((k) => (steps[k] ?? 0).toString(16).padStart(2, '0'))
    .join('');
}
