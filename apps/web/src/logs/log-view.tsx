/**
 * A build log that stays fast at any length: only the rows in sight (plus a margin) are in the
 * DOM, each a fixed height, inside a spacer as tall as the whole log. Lines carry ANSI colours,
 * a number that links to `#L<n>`, and the search matches marked. With `follow` on it keeps to
 * the bottom as lines arrive; scrolling up turns follow off.
 * @module
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode, UIEvent } from 'react';
import { parseAnsi } from './ansi.js';
import type { AnsiSegment } from './ansi.js';

export const ROW_HEIGHT = 18;
const OVERSCAN = 30;
/** When the element has no layout (jsdom) or has not been measured yet. */
const FALLBACK_HEIGHT = 480;

export interface LogViewProps {
  lines: readonly string[];
  /** Changes whenever lines were appended (the array may be the same object). */
  version?: number;
  follow?: boolean;
  onFollowChange?: (follow: boolean) => void;
  search?: string;
  /** 1-based line to bring into view and mark (a search hit or a `#L<n>` link). */
  currentLine?: number;
  onSelectLine?: (line: number) => void;
}

export function LogView(props: LogViewProps) {
  const { lines, follow = false, onFollowChange, search = '', currentLine } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(FALLBACK_HEIGHT);
  const total = lines.length * ROW_HEIGHT;

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
    if (currentLine === undefined || !ref.current) return;
    const top = Math.max(0, (currentLine - 1) * ROW_HEIGHT - viewport / 2);
    ref.current.scrollTop = top;
    setScrollTop(top);
  }, [currentLine, viewport]);

  const onScroll = (event: UIEvent<HTMLDivElement>) => {
    const top = event.currentTarget.scrollTop;
    setScrollTop(top);
    const atBottom = top + viewport >= total - 2 * ROW_HEIGHT;
    if (follow && !atBottom) onFollowChange?.(false);
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(lines.length, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN);
  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <LogRow
        key={i}
        number={i + 1}
        text={lines[i] ?? ''}
        search={search}
        current={currentLine === i + 1}
        onSelect={props.onSelectLine}
      />,
    );
  }
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

interface LogRowProps {
  number: number;
  text: string;
  search: string;
  current: boolean;
  onSelect: ((line: number) => void) | undefined;
}

function LogRow({ number, text, search, current, onSelect }: LogRowProps) {
  const segments = useMemo(() => parseAnsi(text), [text]);
  return (
    <div
      className={current ? 'log-line current' : 'log-line'}
      style={{ top: (number - 1) * ROW_HEIGHT }}
      data-line={number}
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
      <span className="lt">{segments.map((s, i) => renderSegment(s, i, search))}</span>
    </div>
  );
}

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
