/**
 * The streamed lines as sections and rows for the view: sections grow with the lines (cut again
 * from the start only when the build's steps or lanes change), and the rows follow which
 * sections are open: the user's choice, else open at the failed step (`defaultOpen`); the
 * section of the line asked for is always open.
 * @module
 */
import { useMemo, useRef } from 'react';
import type { BuildStep } from '@sluice/protocol';
import { addToSections, defaultOpen, sectionRows } from './log-sections.js';
import type { LogSection, SectionLine, SectionRows } from './log-sections.js';

export interface LogSections extends SectionRows {
  sections: LogSection[];
  isOpen: (section: LogSection) => boolean;
}

export function useLogSections(
  lines: readonly SectionLine[],
  options: {
    version: number;
    steps: readonly BuildStep[];
    overrides: ReadonlyMap<string, boolean>;
    /** 0-based line whose section must be open. */
    forceLine: number | undefined;
  },
): LogSections {
  const { version, steps, overrides, forceLine } = options;
  const state = useRef({ lines, shape: '', done: 0, sections: [] as LogSection[] });
  const shape = steps.map((s) => `${s.name}/${s.parent ?? ''}`).join(',');
  const sections = useMemo(() => {
    const kept = state.current;
    if (kept.lines !== lines || kept.shape !== shape) {
      state.current = { lines, shape, done: 0, sections: [] };
    }
    const current = state.current;
    addToSections(current.sections, lines, { from: current.done, steps });
    current.done = lines.length;
    return [...current.sections];
    // The lines array grows in place; version says when. Statuses change with steps.
  }, [lines, version, steps, shape]);

  return useMemo(() => {
    const byDefault = defaultOpen(sections);
    const forced = forceLine === undefined ? undefined : sectionOfLine(sections, forceLine);
    const isOpen = (section: LogSection) =>
      section === forced || (overrides.get(section.key) ?? byDefault(section));
    return { sections, isOpen, ...sectionRows(sections, lines.length, isOpen) };
  }, [sections, overrides, forceLine, lines.length]);
}

function sectionOfLine(sections: readonly LogSection[], line: number): LogSection | undefined {
  return sections.find((s) => binaryHas(s.lines, line));
}

function binaryHas(sorted: readonly number[], value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const at = sorted[mid] ?? 0;
    if (at === value) return true;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return false;
}
