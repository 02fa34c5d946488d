/**
 * How times and durations read in the UI: `1m 05s`, `850 ms`, `3 min ago`.
 * @module
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** From `start` to `end`, or to now while it runs; undefined before it started. */
export function between(start: string | null | undefined, end: string | null | undefined) {
  if (!start) return undefined;
  const to = end ? Date.parse(end) : Date.now();
  return to - Date.parse(start);
}

export function formatAgo(at: string | null | undefined, now = Date.now()): string {
  if (!at) return 'never';
  const s = Math.round((now - Date.parse(at)) / 1000);
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(at).toLocaleString();
}

export function shortRevision(revision: string | null): string {
  return revision ? revision.slice(0, 8) : '—';
}
