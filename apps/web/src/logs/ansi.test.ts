import { expect, test } from 'vitest';
import { parseAnsi, stripAnsi } from './ansi.js';

const ESC = String.fromCharCode(27);

test('16 colours, bright colours, backgrounds and resets', () => {
  const segments = parseAnsi(`${ESC}[31;44mA${ESC}[39mB${ESC}[0;92mC${ESC}[0mD`);
  expect(segments).toEqual([
    { text: 'A', style: { fg: 'c1', bg: 'c4' } },
    { text: 'B', style: { fg: undefined, bg: 'c4' } },
    { text: 'C', style: { fg: 'c10' } },
    { text: 'D', style: {} },
  ]);
});

test('256-colour and truecolour foregrounds', () => {
  const [a, b, c] = parseAnsi(`${ESC}[38;5;196mA${ESC}[38;2;1;2;255mB${ESC}[38;5;3mC`);
  expect(a?.style.fg).toBe('#ff0000');
  expect(b?.style.fg).toBe('#0102ff');
  expect(c?.style.fg).toBe('c3');
});

test('cursor and erase sequences are dropped, not shown', () => {
  expect(stripAnsi(`${ESC}[2K${ESC}[1Gprogress 50%${ESC}[0m`)).toBe('progress 50%');
  expect(parseAnsi(`${ESC}[2Kdone`)).toEqual([{ text: 'done', style: {} }]);
});
