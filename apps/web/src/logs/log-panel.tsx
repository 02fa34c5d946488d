/**
 * The build page's log: one collapsible section per step (or parallel block) with its status,
 * duration and title, opened at the failed step; search with next and previous, follow,
 * timestamps on a toggle, download of the whole log or one step's (with timestamps when they
 * are shown), and the stream's state; the rows in a virtualised `LogView`.
 * `#L<n>` in the address marks and shows line n of the whole log, `#step-<name>` opens and shows
 * that step's section; both work on load.
 * @module
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { BuildStep } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import type { Api } from '../api/api-context.js';
import { formatDuration } from '../app/format.js';
import { stripAnsi } from './ansi.js';
import { isLabelled, sectionDuration, sectionStatus } from './log-sections.js';
import type { LogSection } from './log-sections.js';
import { LogLineRow, LogView } from './log-view.js';
import { useLogStream } from './log-stream.js';
import type { LogSource, StreamedLine } from './log-stream.js';
import { useLogSections } from './use-log-sections.js';

export interface LogPanelProps {
  buildId: string;
  /** The build's log, asked for by the page from its first render (`useLogSource`). */
  source: LogSource;
  buildNumber: number;
  steps: readonly BuildStep[];
  /** Whether the build had finished when the page opened: then it opens at a failed step. */
  finished?: boolean;
  /** Called when new lines have arrived. */
  onLines?: () => void;
}

type Target = { line: number } | { step: string } | { failed: true } | undefined;

export function LogPanel(props: LogPanelProps) {
  const { buildId, buildNumber, steps, finished, onLines } = props;
  const api = useApi();
  const stream = useLogStream(props.source);
  useEffect(() => {
    if (stream.version > 0) onLines?.();
  }, [stream.version, onLines]);
  const [step, setStep] = useState('');
  const [search, setSearch] = useState('');
  const [hit, setHit] = useState(0);
  const [target, setTarget] = useState<Target>(() => targetFromHash(finished === true));
  const [follow, setFollow] = useState(target === undefined);
  const [times, setTimes] = useState(false);
  // A `#step-` address opens its section on load, as a click on the link does later.
  const [overrides, setOverrides] = useState<ReadonlyMap<string, boolean>>(() => {
    const opened = target && 'step' in target ? target.step : undefined;
    if (opened === undefined) return new Map();
    return new Map([[steps.find((s) => s.name === opened)?.parent ?? opened, true]]);
  });

  // A step's link (`#step-<name>`, the graph's nodes) opens its section and shows it.
  useEffect(() => {
    const onHash = () => {
      const next = targetFromHash(false);
      if (!next) return;
      setFollow(false);
      setTarget(next);
      if ('step' in next) {
        const key = steps.find((s) => s.name === next.step)?.parent ?? next.step;
        setOverrides((old) => new Map(old).set(key, true));
        document.querySelector('.log-panel')?.scrollIntoView({ block: 'start' });
      }
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [steps]);
  const lines = stream.lines;
  const hits = useMemo(
    () => findHits(lines, search),
    // The lines array grows in place; version says when.
    [lines, stream.version, search],
  );
  const hitLine = search && hits.length > 0 ? hits[hit % hits.length] : undefined;
  const line = hitLine ?? (target && 'line' in target ? target.line : undefined);
  const view = useLogSections(lines, {
    version: stream.version,
    steps,
    overrides,
    forceLine: line === undefined ? undefined : line - 1,
  });
  const currentRow = rowOfTarget(view, line, target);

  const jump = (delta: number) => {
    if (hits.length === 0) return;
    setFollow(false);
    setHit((h) => (h + delta + hits.length) % hits.length);
  };
  const select = useCallback((n: number) => {
    setFollow(false);
    setTarget({ line: n });
    window.history.replaceState(null, '', `#L${n}`);
  }, []);
  const toggle = (section: LogSection) =>
    setOverrides((old) => new Map(old).set(section.key, !view.isOpen(section)));
  const names = [...new Set(steps.map((s) => s.name))];
  const titles = new Map(steps.flatMap((s) => (s.title ? [[s.name, s.title] as const] : [])));

  const renderRow = (index: number, top: number) => {
    const row = view.rows[index] ?? 0;
    if (row < 0) {
      const section = view.sections[-row - 1];
      if (!section) return null;
      const open = view.isOpen(section);
      return (
        <SectionHeader
          key={`s${section.key}`}
          section={section}
          top={top}
          open={open}
          onToggle={toggle}
        />
      );
    }
    const l = lines[row];
    const section = view.sections.find((s) => s.key === sectionKey(l, steps));
    return (
      <LogLineRow
        key={row}
        number={row + 1}
        top={top}
        text={l?.text ?? ''}
        stream={l?.stream}
        label={section && isLabelled(section) ? (l?.step ?? undefined) : undefined}
        time={times && l ? l.at.slice(11, 23) : undefined}
        search={search}
        current={row + 1 === line}
        onSelect={select}
      />
    );
  };

  return (
    <section className="log-panel" aria-label="Log">
      <div className="toolbar">
        <label>
          Step{' '}
          <select
            value={step}
            onChange={(e) => {
              setStep(e.target.value);
              if (e.target.value === '') return;
              setFollow(false);
              setTarget({ step: e.target.value });
            }}
          >
            <option value="">All steps</option>
            {names.map((name) => (
              <option key={name} value={name}>
                {titles.has(name) ? `${name} — ${titles.get(name)}` : name}
              </option>
            ))}
          </select>
        </label>
        <input
          type="search"
          placeholder="Search the log"
          aria-label="Search the log"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setHit(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter') jump(e.shiftKey ? -1 : 1);
          }}
        />
        <span className="muted" aria-live="polite">
          {search ? `${hits.length === 0 ? 0 : (hit % hits.length) + 1}/${hits.length}` : ''}
        </span>
        <button type="button" onClick={() => jump(-1)} disabled={hits.length === 0}>
          Previous
        </button>
        <button type="button" onClick={() => jump(1)} disabled={hits.length === 0}>
          Next
        </button>
        <label>
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} />{' '}
          Follow
        </label>
        <label>
          <input type="checkbox" checked={times} onChange={(e) => setTimes(e.target.checked)} />{' '}
          Timestamps
        </label>
        <button
          type="button"
          onClick={() => void download(api, { buildId, buildNumber, step, lines: times && lines })}
        >
          {step === '' ? 'Download' : `Download ${step}`}
        </button>
        <span className={`stream-state ${stream.state}`} data-testid="stream-state">
          {streamLabel[stream.state]} · {lines.length} lines
        </span>
      </div>
      <LogView
        rowCount={view.rows.length}
        renderRow={renderRow}
        version={stream.version}
        follow={follow}
        onFollowChange={setFollow}
        currentRow={currentRow}
        currentKey={target && 'step' in target ? target.step : line}
      />
    </section>
  );
}

function SectionHeader(props: {
  section: LogSection;
  top: number;
  open: boolean;
  onToggle: (section: LogSection) => void;
}) {
  const { section, open } = props;
  const status = sectionStatus(section);
  const duration = sectionDuration(section);
  const own = section.steps.find((s) => s.name === section.key);
  const title = own?.title;
  const lanes = section.steps.filter((s) => s.parent === section.key).map((s) => s.name);
  const parallel = isLabelled(section) ? lanes.join(', ') : '';
  const runs = own?.block === 'sequential' ? 'in order' : 'parallel';
  return (
    <div
      className={`log-section status-${status ?? 'none'}`}
      style={{ top: props.top }}
      id={`step-${section.key}`}
      data-section={section.key}
    >
      <button type="button" aria-expanded={open} onClick={() => props.onToggle(section)}>
        <span className="chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span className="section-title">{section.key === '' ? 'Engine' : section.key}</span>
        {title ? <span className="section-step-title">{title}</span> : null}
        {parallel ? (
          <span className="muted">
            {' '}
            {runs}: {parallel}
          </span>
        ) : null}
        {status ? <span className={`badge status-${status}`}>{status}</span> : null}
        <span className="muted section-meta">
          {duration !== undefined ? formatDuration(duration) : ''} · {section.lines.length} lines
        </span>
      </button>
    </div>
  );
}

function sectionKey(line: StreamedLine | undefined, steps: readonly BuildStep[]): string {
  if (!line?.step) return '';
  return steps.find((s) => s.name === line.step)?.parent ?? line.step;
}

function rowOfTarget(
  view: ReturnType<typeof useLogSections>,
  line: number | undefined,
  target: Target,
): number | undefined {
  if (line !== undefined) {
    const row = view.rowOfLine[line - 1];
    return row === undefined || row < 0 ? undefined : row;
  }
  if (!target || 'line' in target) return undefined;
  const index = view.sections.findIndex((s) =>
    'step' in target ? s.key === target.step || s.steps.some((x) => x.name === target.step) : false,
  );
  const failed = view.sections.findIndex((s) => s.steps.some((x) => isFailed(x.status)));
  return view.rowOfSection['step' in target ? index : failed];
}

function isFailed(status: string): boolean {
  return status === 'failure' || status === 'timeout' || status === 'denied';
}

const streamLabel = {
  connecting: 'connecting',
  live: 'live',
  reconnecting: 'connection lost, reconnecting',
  ended: 'complete',
  missing: 'no such build',
} as const;

function findHits(lines: readonly StreamedLine[], search: string): number[] {
  if (!search) return [];
  const needle = search.toLowerCase();
  const hits: number[] = [];
  lines.forEach((line, i) => {
    if (stripAnsi(line.text).toLowerCase().includes(needle)) hits.push(i + 1);
  });
  return hits;
}

function targetFromHash(finished: boolean): Target {
  const hash = decodeURIComponent(window.location.hash);
  const line = /^#L(\d+)$/.exec(hash);
  if (line) return { line: Number(line[1]) };
  if (hash.startsWith('#step-')) return { step: hash.slice(6) };
  return finished ? { failed: true } : undefined;
}

/**
 * The whole log or one step's: from the server, or (with timestamps) written from the lines the
 * page holds, each after its time.
 */
async function download(
  api: Api,
  options: {
    buildId: string;
    buildNumber: number;
    step: string;
    lines: readonly StreamedLine[] | false;
  },
): Promise<void> {
  const { buildId, buildNumber, step } = options;
  let blob: Blob;
  if (options.lines) {
    const text = options.lines
      .filter((l) => step === '' || l.step === step)
      .map((l) => `${l.at} ${step === '' && l.step ? `[${l.step}] ` : ''}${stripAnsi(l.text)}\n`);
    blob = new Blob(text, { type: 'text/plain' });
  } else {
    const query = step === '' ? {} : { step };
    blob = await (await api.raw('buildLog', { params: { buildId }, query })).blob();
  }
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = step === '' ? `build-${buildNumber}.log` : `build-${buildNumber}-${step}.log`;
  link.click();
  URL.revokeObjectURL(url);
}
