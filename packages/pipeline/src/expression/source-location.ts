/**
 * Turns offsets in an expression source into 1-based line/column issues.
 * @module
 */

import type { ExprIssue } from './expression-types.js';

/**
 * Builds an issue at `offset`. Lines break at `\n`, `\r\n` or a lone `\r`, because interpolated
 * values (commit messages) may carry any of them.
 */
export function issueAt(source: string, offset: number, message: string): ExprIssue {
  const clamped = Math.max(0, Math.min(offset, source.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < clamped; i++) {
    const ch = source[i];
    if (ch === '\n' || (ch === '\r' && source[i + 1] !== '\n')) {
      line++;
      lineStart = i + 1;
    }
  }
  return { message, offset: clamped, line, column: clamped - lineStart + 1 };
}
