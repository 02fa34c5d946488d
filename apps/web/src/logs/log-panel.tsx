/**
 * The build page's log: a step picker (all steps or one), search with next and previous, follow,
 * download of the log in view (the whole log, or the step picked: `GET …/log?step=`), and the
 * stream's state; the lines in a virtualised `LogView`.
 * `#L<n>` in the address marks and shows line n of the lines in view.
 * @module
 */
import { useEffect, useMemo, useState } from 'react';
import type { BuildStep } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { stripAnsi } from './ansi.js';
import { LogView } from './log-view.js';
import { useLogStream } from './log-stream.js';

export interface LogPanelProps {
  buildId: string;
  buildNumber: number;
  steps: readonly BuildStep[];
  /** Called when new lines have arrived. */
  onLines?: () => void;
}

export function LogPanel({ buildId, buildNumber, steps, onLines }: LogPanelProps) {
  const api = useApi();
  const stream = useLogStream(api, buildId);
  useEffect(() => {
    if (stream.version > 0) onLines?.();
  }, [stream.version, onLines]);
  const [step, setStep] = useState('');
  const [search, setSearch] = useState('');
  const [hit, setHit] = useState(0);
  const [follow, setFollow] = useState(true);
  const [line, setLine] = useState<number | undefined>(() => lineFromHash());

  const texts = useMemo(
    () => stream.lines.filter((l) => step === '' || l.step === step).map((l) => l.text),
    // The lines array grows in place; version says when.
    [stream.lines, stream.version, step],
  );
  const hits = useMemo(() => findHits(texts, search), [texts, search]);
  const current = search && hits.length > 0 ? hits[hit % hits.length] : line;

  const jump = (delta: number) => {
    if (hits.length === 0) return;
    setFollow(false);
    setHit((h) => (h + delta + hits.length) % hits.length);
  };
  const select = (n: number) => {
    setFollow(false);
    setLine(n);
    window.history.replaceState(null, '', `#L${n}`);
  };
  const download = async () => {
    const query = step === '' ? {} : { step };
    const response = await api.raw('buildLog', { params: { buildId }, query });
    const url = URL.createObjectURL(await response.blob());
    const link = document.createElement('a');
    link.href = url;
    link.download = step === '' ? `build-${buildNumber}.log` : `build-${buildNumber}-${step}.log`;
    link.click();
    URL.revokeObjectURL(url);
  };
  const names = [...new Set(steps.map((s) => s.name))];

  return (
    <section className="log-panel" aria-label="Log">
      <div className="toolbar">
        <label>
          Step{' '}
          <select value={step} onChange={(e) => setStep(e.target.value)}>
            <option value="">All steps</option>
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
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
        <button type="button" onClick={() => void download()}>
          {step === '' ? 'Download' : `Download ${step}`}
        </button>
        <span className={`stream-state ${stream.state}`} data-testid="stream-state">
          {streamLabel[stream.state]} · {texts.length} lines
        </span>
      </div>
      <LogView
        lines={texts}
        version={stream.version}
        follow={follow}
        onFollowChange={setFollow}
        search={search}
        currentLine={current}
        onSelectLine={select}
      />
    </section>
  );
}

const streamLabel = {
  connecting: 'connecting',
  live: 'live',
  reconnecting: 'connection lost, reconnecting',
  ended: 'complete',
} as const;

function findHits(texts: readonly string[], search: string): number[] {
  if (!search) return [];
  const needle = search.toLowerCase();
  const hits: number[] = [];
  texts.forEach((text, i) => {
    if (stripAnsi(text).toLowerCase().includes(needle)) hits.push(i + 1);
  });
  return hits;
}

function lineFromHash(): number | undefined {
  const match = /^#L(\d+)$/.exec(window.location.hash);
  return match ? Number(match[1]) : undefined;
}
