import { Text } from '@codemirror/state';
import { expect, test } from 'vitest';
import { diagnosticOf } from './yaml-editor.js';

const doc = Text.of(['version: "1.0"', 'steps:', '  build:', '    imgae: alpine', '']);
const issue = { severity: 'error' as const, code: 'X', message: 'm', path: [] };

test("marks from the issue's column to the end of its line", () => {
  const marked = diagnosticOf(doc, { ...issue, line: 4, column: 5 });
  expect(doc.sliceString(marked.from, marked.to)).toBe('imgae: alpine');
  expect(doc.lineAt(marked.from).number).toBe(4);
});

test('keeps a line or column past the text inside it (the text changed since the check)', () => {
  const pastEnd = diagnosticOf(doc, { ...issue, line: 40, column: 3 });
  expect(pastEnd.from).toBe(doc.length);
  expect(pastEnd.to).toBe(pastEnd.from);
  const pastColumn = diagnosticOf(doc, { ...issue, line: 2, column: 99 });
  expect(pastColumn.from).toBe(doc.line(2).to);
  const zero = diagnosticOf(doc, { ...issue, line: 0, column: 0 });
  expect(zero.from).toBe(0);
});
