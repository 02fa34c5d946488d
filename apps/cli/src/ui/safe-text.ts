/**
 * Text on its way to a terminal, made harmless: what a build, an agent or a user wrote (log
 * lines, step names, reasons, annotations, health messages) could otherwise drive the terminal
 * that shows it: `ESC ] 52` writes the clipboard, `ESC ] 0` the window title, `ESC [ 2 J` clears
 * the screen, a lone carriage return overwrites what the line said. Colours (SGR, `ESC [ … m`)
 * are kept when colour is on and dropped when it is off; every other control character (C0 but
 * tab and newline, DEL, C1) is shown as a visible escape, `\x1b`, so what was sent can still be
 * read. The web UI's log view does the same (it renders SGR only).
 * @module
 */

/** An SGR sequence, or a control character on its own (a CR before LF is a line end). */
// eslint-disable-next-line no-control-regex -- control characters are what this module is about
const CONTROL = /\u001b\[[0-9;:]*m|\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const RESET = '\u001b[0m';

export interface SafeTextOptions {
  /** Keep SGR colour sequences (else they are dropped). */
  color: boolean;
}

/**
 * `text` with its SGR colours kept (when `color`) and every other control character but tab
 * and newline shown as `\xNN`. A line that kept a colour ends with a reset, so a colour left
 * on does not run into what is printed next.
 */
export function safeText(text: string, options: SafeTextOptions): string {
  let colored = false;
  const safe = text.replace(CONTROL, (found) => {
    if (found === '\r\n') return '\n';
    if (found.length > 1) {
      colored ||= options.color;
      return options.color ? found : '';
    }
    return `\\x${found.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
  return colored ? `${safe}${RESET}` : safe;
}

/**
 * `JSON.stringify` whose text holds no control character at all: JSON escapes C0 itself, and
 * here DEL and C1 too (`\u009b`), so JSON output stays valid JSON and harmless on a terminal.
 */
export function safeJson(value: unknown, indent?: number): string {
  // DEL and C1, which JSON leaves as they are.
  return JSON.stringify(value, null, indent).replace(
    /[\u007f-\u009f]/g,
    (found) => `\\u${found.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
