import { expect, test } from 'vitest';
import type { BuildStep } from '@sluice/protocol';
import {
  addToSections,
  applyCarriageReturns,
  defaultOpen,
  isLabelled,
  sectionRows,
  sectionStatus,
} from './log-sections.js';
import type { LogSection } from './log-sections.js';

function step(name: string, status: BuildStep['status'], parent: string | null = null): BuildStep {
  const at = '2026-01-01T00:00:00.000Z';
  return {
    ...{ name, status, parent, position: 0, stage: null, attempt: 1, exitCode: null },
    ...{ reason: null, startedAt: at, finishedAt: at, answeredBy: null },
    ...{ answeredAt: null, title: null, needs: [], block: null },
  };
}

test("a parallel block's steps share a labelled section; the engine's lines have their own", () => {
  const steps = [
    step('build', 'success'),
    step('a', 'success', 'tests'),
    step('b', 'failure', 'tests'),
  ];
  const lines = ['build', 'a', 'b', 'a', null, ''].map((s) => ({ step: s }));
  const sections: LogSection[] = [];
  addToSections(sections, lines, { from: 0, steps });
  expect(sections.map((s) => [s.key, s.lines])).toEqual([
    ['build', [0]],
    ['tests', [1, 2, 3]],
    ['', [4, 5]],
  ]);
  expect(sections.map(isLabelled)).toEqual([false, true, false]);
  expect(sections.map(sectionStatus)).toEqual(['success', 'failure', null]);
});

test('a failed step opens its section alone; rows are headers then the open lines', () => {
  const steps = [step('build', 'success'), step('test', 'failure')];
  const sections: LogSection[] = [];
  addToSections(sections, [{ step: 'build' }, { step: 'test' }, { step: 'test' }], {
    from: 0,
    steps,
  });
  const view = sectionRows(sections, 3, defaultOpen(sections));
  expect([...view.rows]).toEqual([-1, -2, 1, 2]);
  expect([...view.rowOfLine]).toEqual([-1, 2, 3]);
  expect([...view.rowOfSection]).toEqual([0, 1]);

  const passed = [step('build', 'success'), step('test', 'success')];
  addToSections(sections, [], { from: 3, steps: passed });
  expect([...sectionRows(sections, 3, defaultOpen(sections)).rows]).toEqual([-1, 0, -2, 1, 2]);
});

test('a carriage return rewrites the line from its start, as a terminal does', () => {
  expect(applyCarriageReturns('10%\r20%\r100% done')).toBe('100% done');
  expect(applyCarriageReturns('downloading 5/9\rok')).toBe('okwnloading 5/9');
  expect(applyCarriageReturns('plain\r\r')).toBe('plain');
  expect(applyCarriageReturns('\u001b[32m1\u001b[0m\r\u001b[32m2\u001b[0m')).toBe(
    '\u001b[32m2\u001b[0m',
  );
});
