/**
 * Prints pipeline problems compiler-style, `file:line:column: error: message (at path)`, plus the
 * offending source line with a caret, so every problem can be fixed without guessing.
 * @module
 */
import { formatIssue } from '@sluice/pipeline';
import type { PipelineIssue } from '@sluice/pipeline';
import type { Terminal } from './terminal.js';

export function printIssues(
  term: Terminal,
  issues: readonly PipelineIssue[],
  sourceText: string,
): void {
  const lines = sourceText.split('\n');
  for (const issue of issues) {
    const style = issue.severity === 'error' ? 'red' : 'yellow';
    term.err(term.paint(style, formatIssue(issue)));
    const line = lines[issue.line - 1];
    if (line !== undefined && line.trim() !== '') {
      term.err(term.paint('dim', `  ${issue.line} | ${line}`));
      term.err(
        term.paint(
          'dim',
          `  ${' '.repeat(String(issue.line).length)} | ${' '.repeat(Math.max(0, issue.column - 1))}^`,
        ),
      );
    }
  }
  const errors = issues.filter((i) => i.severity === 'error').length;
  const warnings = issues.length - errors;
  term.err(
    `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`,
  );
}
