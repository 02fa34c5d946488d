/**
 * A build log cut into sections, as GitHub Actions and GitLab draw it: one section per step, or
 * one per parallel block (typed step, matrix) whose steps' lines stay interleaved and are
 * labelled with their step; the engine's lines outside any step make a section of their own.
 * Sections come in the order their first line came. Each section has its steps' status and
 * duration, and opens at a failed step: when a step failed only the failed steps' sections are
 * open, else every section is.
 * The view's rows are numbers, not objects, so a 100,000-line log costs one typed array per
 * update: a row `>= 0` is the line of that index, a row `< 0` is the header of section `-row - 1`.
 * @module
 */
import type { BuildStep, StepStatus } from '@sluice/protocol';

export interface SectionLine {
  step: string | null;
}

export interface LogSection {
  /** The step's name, the parallel block's, or '' for the engine's own lines. */
  key: string;
  steps: BuildStep[];
  /** Indices of its lines in the whole log, in order. */
  lines: number[];
}

const FAILED: readonly StepStatus[] = ['failure', 'timeout', 'denied', 'terminated'];
const ORDER: readonly StepStatus[] = [
  'failure',
  'timeout',
  'denied',
  'terminated',
  'running',
  'pending-approval',
  'pending',
  'success',
  'skipped',
];

/** The section a step's lines go in: its lane (parallel block) when it has one. */
function sectionKeyOf(step: string | null, byName: ReadonlyMap<string, BuildStep>): string {
  if (!step) return '';
  return byName.get(step)?.parent ?? step;
}

/** Adds the lines from `from` on to `sections` (kept between updates, as lines only grow). */
export function addToSections(
  sections: LogSection[],
  lines: readonly SectionLine[],
  options: { from: number; steps: readonly BuildStep[] },
): void {
  const byName = new Map(options.steps.map((s) => [s.name, s]));
  const byKey = new Map(sections.map((s) => [s.key, s]));
  for (let i = options.from; i < lines.length; i++) {
    const key = sectionKeyOf(lines[i]?.step ?? null, byName);
    let section = byKey.get(key);
    if (!section) {
      section = { key, steps: [], lines: [] };
      byKey.set(key, section);
      sections.push(section);
    }
    section.lines.push(i);
  }
  for (const section of sections) {
    section.steps = options.steps.filter(
      (s) => s.name === section.key || (s.parent === section.key && section.key !== ''),
    );
  }
}

/** The section's status: the worst of its steps' (a failure over a success); null for none. */
export function sectionStatus(section: LogSection): StepStatus | null {
  let best: StepStatus | null = null;
  for (const step of section.steps) {
    if (best === null || ORDER.indexOf(step.status) < ORDER.indexOf(best)) best = step.status;
  }
  return best;
}

/** From its first step's start to its last step's end (or now while one runs). */
export function sectionDuration(section: LogSection, now = Date.now()): number | undefined {
  const starts = section.steps.flatMap((s) => (s.startedAt ? [Date.parse(s.startedAt)] : []));
  if (starts.length === 0) return undefined;
  const ends = section.steps.map((s) => (s.finishedAt ? Date.parse(s.finishedAt) : now));
  return Math.max(...ends) - Math.min(...starts);
}

/** A parallel block's lines are labelled with their step; a single step's need no label. */
export function isLabelled(section: LogSection): boolean {
  return section.key !== '' && section.steps.some((s) => s.name !== section.key);
}

export function hasFailed(section: LogSection): boolean {
  return section.steps.some((s) => FAILED.includes(s.status));
}

/** Open by default: the failed sections when a step failed, else all of them. */
export function defaultOpen(sections: readonly LogSection[]): (section: LogSection) => boolean {
  const anyFailed = sections.some(hasFailed);
  return (section) => !anyFailed || hasFailed(section);
}

export interface SectionRows {
  rows: Int32Array;
  /** The row of each line; -1 while its section is closed. */
  rowOfLine: Int32Array;
  /** The row of each section's header. */
  rowOfSection: Int32Array;
}

export function sectionRows(
  sections: readonly LogSection[],
  lineCount: number,
  isOpen: (section: LogSection) => boolean,
): SectionRows {
  let count = sections.length;
  for (const section of sections) if (isOpen(section)) count += section.lines.length;
  const rows = new Int32Array(count);
  const rowOfLine = new Int32Array(lineCount).fill(-1);
  const rowOfSection = new Int32Array(sections.length);
  let at = 0;
  sections.forEach((section, k) => {
    rowOfSection[k] = at;
    rows[at++] = -k - 1;
    if (!isOpen(section)) return;
    for (const line of section.lines) {
      rowOfLine[line] = at;
      rows[at++] = line;
    }
  });
  return { rows, rowOfLine, rowOfSection };
}

/**
 * What a terminal shows for a line with carriage returns: each `\r` goes back to the line's
 * start and the text after it overwrites what was there (a progress bar's last state). A line
 * with colour escapes keeps the last non-empty rewrite whole, as overwriting inside escapes
 * cannot be done character by character.
 */
export function applyCarriageReturns(line: string): string {
  if (!line.includes('\r')) return line;
  const parts = line.replace(/\r+$/, '').split('\r');
  if (line.includes('\u001b')) return parts.filter((p) => p !== '').pop() ?? '';
  let shown = '';
  for (const part of parts) shown = part + shown.slice(part.length);
  return shown;
}
