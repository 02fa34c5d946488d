/**
 * The single module that writes to the terminal for people: colours when the output is a TTY,
 * plain text otherwise. Everything the CLI shows goes through a `Terminal`, and everything it
 * writes goes through `safeText` (safe-text.ts): much of it was written by builds, agents and
 * users, and no caller has to remember which. Only `raw` (`sluice logs --raw`) writes as is.
 * @module
 */
import { safeText } from './safe-text.js';

export interface Terminal {
  /** A line on stdout, made safe: colours kept when colour is on, other controls escaped. */
  out(text: string): void;
  /** A line on stderr, made safe as `out`. */
  err(text: string): void;
  /** A line on stdout exactly as given, control characters and all (`sluice logs --raw`). */
  raw(text: string): void;
  readonly color: boolean;
  /** Stdout is a terminal a person reads (not a pipe, file or log collector): secrets may be shown. */
  readonly interactive: boolean;
  paint(style: Style, text: string): string;
}

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'magenta';

const CODES: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  magenta: [35, 39],
};

export interface CreateTerminalOptions {
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
  color: boolean;
  /** Whether stdout is a terminal; from `stdout.isTTY` by default. */
  interactive?: boolean;
}

export function createTerminal(options: CreateTerminalOptions): Terminal {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  // A reader that went away (`sluice get builds | head`) ends the command quietly, as in Unix.
  stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  return {
    color: options.color,
    interactive: options.interactive ?? (stdout as { isTTY?: boolean }).isTTY === true,
    out: (text) => void stdout.write(`${safeText(text, options)}\n`),
    err: (text) => void stderr.write(`${safeText(text, options)}\n`),
    raw: (text) => void stdout.write(`${text}\n`),
    paint: (style, text) => {
      if (!options.color) return text;
      const [open, close] = CODES[style];
      return `\u001b[${open}m${text}\u001b[${close}m`;
    },
  };
}

/**
 * The terminal as the processes the CLI starts print through it (`@sluice/<app>/main`): lines
 * on stdout and stderr, errors as `printError` shows them, and whether a person reads stdout.
 */
export function processOutput(term: Terminal): ProcessOutput {
  return {
    out: (text) => term.out(text),
    err: (text) => term.err(text),
    error: (message, hint) => printError(term, message, hint),
    interactive: term.interactive,
  };
}

export interface ProcessOutput {
  out(text: string): void;
  err(text: string): void;
  error(message: string, hint?: string): void;
  readonly interactive: boolean;
}

/** An error for people: `error: message` in red, then its hint (what to do) dimmed. */
export function printError(term: Terminal, message: string, hint?: string): void {
  term.err(term.paint('red', `error: ${message}`));
  if (hint) term.err(term.paint('dim', `hint: ${hint}`));
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) {
    const minutes = Math.floor(ms / 60_000);
    return `${minutes}m${Math.round((ms % 60_000) / 1000)}s`;
  }
  const hours = Math.floor(ms / 3_600_000);
  return `${hours}h${Math.floor((ms % 3_600_000) / 60_000)}m`;
}

/**
 * A table's cells as they will show: no colour, control characters escaped (`out` would escape
 * them anyway, but after the columns were measured).
 */
function shownCells(rows: readonly (readonly string[])[]): string[][] {
  return rows.map((row) => row.map((cell) => safeText(cell, { color: false })));
}

/** Columns padded to their widest cell. */
export function formatTable(table: readonly (readonly string[])[]): string[] {
  const rows = shownCells(table);
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** No column is cut below this: a short value cut is no longer readable (kubectl cuts none). */
const MIN_COLUMN = 16;

/**
 * `formatTable` within `width` characters: while the table is too wide, its widest column is
 * cut (cells end with `…`), down to 16 characters each. The columns in `keep` (the first, by
 * default: the NAME a reader copies into the next command, as kubectl never cuts it) are never
 * cut, even when the table then stays wider than `width`.
 */
export function fitTable(
  table: readonly (readonly string[])[],
  width: number,
  keep: readonly number[] = [0],
): string[] {
  const rows = shownCells(table);
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * Math.max(0, widths.length - 1);
  const cuttable = () => widths.map((w, i) => (keep.includes(i) ? 0 : w));
  while (total() > width) {
    const widest = cuttable().indexOf(Math.max(...cuttable()));
    const current = keep.includes(widest) ? 0 : (widths[widest] ?? 0);
    if (current <= MIN_COLUMN) break;
    widths[widest] = Math.max(MIN_COLUMN, current - (total() - width));
  }
  const cut = (cell: string, max: number) =>
    cell.length <= max ? cell : `${cell.slice(0, Math.max(0, max - 1))}…`;
  return formatTable(rows.map((row) => row.map((cell, i) => cut(cell, widths[i] ?? cell.length))));
}

/** How long ago `iso` was, kubectl style: `42s`, `5m`, `3h`, `12d`; `-` when unset. */
export function formatAge(iso: string | null | undefined, now = Date.now()): string {
  const at = Date.parse(iso ?? '');
  if (Number.isNaN(at)) return '-';
  const s = Math.max(0, Math.floor((now - at) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172_800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}
