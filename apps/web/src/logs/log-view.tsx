/**
 * A build log that stays fast at any length: only the rows in sight (plus a margin) are in the
 * DOM, each a fixed height, inside a spacer as tall as the whole log; the rows (lines and section
 * headers) are drawn by the caller. A line (`LogLineRow`) carries ANSI colours, a number that
 * links to `#L<n>`, its step's label, its stream (stderr marked, the engine's own lines styled
 * apart), its time on request and the search matches marked. With `follow` on it keeps to the
 * bottom as rows arrive; scrolling up turns follow off.
 * @module
 */
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode, UIEvent } from 'react';
import { parseAnsi } from './ansi.js';
import type { AnsiSegment } from './ansi.js';

export const ROW_HEIGHT = 18;
const OVERSCAN = 30;
/** When the element has no layout (jsdom) or has not been measured yet. */
const FALLBACK_HEIGHT = 480;

export interface LogViewProps {
  /** How many rows there are: lines and section headers. */
  rowCount: number;
  /** Renders row `index`, placed at `top` px. */
  renderRow: (index: number, top: number) => ReactNode;
  /** Changes whenever rows were appended (the array behind them may be the same object). */
  version?: number;
  follow?: boolean;
  onFollowChange?: (follow: boolean) => void;
  /** 0-based row to bring into view (a search hit, a `#L<n>` or `#step-…` link). */
  currentRow?: number;
  /** Changes when the same row is asked to be brought into view again. */
  currentKey?: string | number;
}

export function LogView(props: LogViewProps) {
  const { rowCount, follow = false, onFollowChange, currentRow, currentKey } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(FALLBACK_HEIGHT);
  const total = rowCount * ROW_HEIGHT;

  useEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight || FALLBACK_HEIGHT));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    if (!follow || !ref.current) return;
    const bottom = Math.max(0, total - viewport);
    ref.current.scrollTop = bottom;
    setScrollTop(bottom);
  }, [follow, total, viewport, props.version]);

  useLayoutEffect(() => {
    if (currentRow === undefined || currentRow < 0 || !ref.current) return;
    const top = Math.max(0, currentRow * ROW_HEIGHT - viewport / 2);
    ref.current.scrollTop = top;
    setScrollTop(ref.current.scrollTop || top);
  }, [currentRow, currentKey, viewport]);

  const onScroll = (event: UIEvent<HTMLDivElement>) => {
    const top = event.currentTarget.scrollTop;
    setScrollTop(top);
    const atBottom = top + viewport >= total - 2 * ROW_HEIGHT;
    if (follow && !atBottom) onFollowChange?.(false);
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rowCount, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(props.renderRow(i, i * ROW_HEIGHT));
  return (
    <div
      ref={ref}
      className="log-view"
      role="log"
      aria-label="Build log"
      tabIndex={0}
      onScroll={onScroll}
    >
      <div className="log-spacer" style={{ height: total }}>
        {rows}
      </div>
    </div>
  );
}

export interface LogLineRowProps {
  /** 1-based number of the line in the whole log. */
  number: number;
  top: number;
  text: string;
  search: string;
  current: boolean;
  /** The step, shown before the text (a parallel block's lines). */
  label?: string | undefined;
  stream?: 'stdout' | 'stderr' | 'system';
  /** Shown before the text when timestamps are on. */
  time?: string | undefined;
  onSelect: ((line: number) => void) | undefined;
}

export const LogLineRow = memo(function LogLineRow(props: LogLineRowProps) {
  const { number, text, search, current, onSelect, label, stream = 'stdout', time } = props;
  const segments = useMemo(() => parseAnsi(text), [text]);
  const classes = ['log-line', `stream-${stream}`];
  if (current) classes.push('current');
  return (
    <div
      className={classes.join(' ')}
      style={{ top: props.top }}
      data-line={number}
      title={stream === 'stderr' ? 'stderr' : undefined}
    >
      <a
        className="ln"
        href={`#L${number}`}
        onClick={(event) => {
          if (!onSelect) return;
          event.preventDefault();
          onSelect(number);
        }}
      >
        {number}
      </a>
      {time ? <span className="ts">{time}</span> : null}
      {stream === 'stderr' ? <span className="mark-stderr" role="img" aria-label="stderr" /> : null}
      {label ? <span className="step-label">{label}</span> : null}
      <span className="lt">{segments.map((s, i) => renderSegment(s, i, search))}</span>
    </div>
  );
});

function renderSegment(segment: AnsiSegment, key: number, search: string): ReactNode {
  const { style } = segment;
  const classes: string[] = [];
  const inline: Record<string, string> = {};
  if (style.fg?.startsWith('c')) classes.push(`ansi-fg-${style.fg.slice(1)}`);
  else if (style.fg) inline.color = style.fg;
  if (style.bg?.startsWith('c')) classes.push(`ansi-bg-${style.bg.slice(1)}`);
  else if (style.bg) inline.backgroundColor = style.bg;
  if (style.bold) classes.push('ansi-bold');
  if (style.dim) classes.push('ansi-dim');
  if (style.italic) classes.push('ansi-italic');
  if (style.underline) classes.push('ansi-underline');
  const content = search ? markMatches(segment.text, search) : segment.text;
  if (classes.length === 0 && Object.keys(inline).length === 0)
    return <span key={key}>{content}</span>;
  return (
    <span key={key} className={classes.join(' ')} style={inline}>
      {content}
    </span>
  );
}

function markMatches(text: string, search: string): ReactNode {
  const lower = text.toLowerCase();
  const needle = search.toLowerCase();
  const parts: ReactNode[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, from)) {
    if (at > from) parts.push(text.slice(from, at));
    parts.push(<mark key={at}>{text.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  if (parts.length === 0) return text;
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}
