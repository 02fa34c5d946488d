/**
 * Where a build's time went: its phases from the API's `timing` (queued → elected → dispatched →
 * objects created → engine started → first step → finished) as bars on one time axis, each with
 * its duration. A phase not reached yet reads "not reached"; a running build's open phase grows
 * to now.
 * @module
 */
import type { BuildTiming } from '@sluice/protocol';
import { formatDuration } from '../app/format.js';

export const PHASES = [
  { from: 'queuedAt', to: 'electedAt', label: 'Queued → elected' },
  { from: 'electedAt', to: 'dispatchedAt', label: 'Elected → dispatched' },
  { from: 'dispatchedAt', to: 'objectsCreatedAt', label: 'Dispatched → objects created' },
  { from: 'objectsCreatedAt', to: 'engineStartedAt', label: 'Objects created → engine started' },
  { from: 'engineStartedAt', to: 'firstStepStartedAt', label: 'Engine started → first step' },
  { from: 'firstStepStartedAt', to: 'finishedAt', label: 'First step → finished' },
] as const satisfies readonly { from: keyof BuildTiming; to: keyof BuildTiming; label: string }[];

export interface WaterfallBar {
  label: string;
  /** Offset from queued and length, in ms; undefined when the phase has not started. */
  offsetMs: number | undefined;
  durationMs: number | undefined;
  open: boolean;
}

/** The bars, pure: `now` closes the phase still running. */
export function waterfallBars(timing: BuildTiming, now: number): WaterfallBar[] {
  const origin = timing.queuedAt ? Date.parse(timing.queuedAt) : undefined;
  return PHASES.map(({ from, to, label }) => {
    const start = timing[from];
    const end = timing[to];
    if (origin === undefined || !start)
      return { label, offsetMs: undefined, durationMs: undefined, open: false };
    const startMs = Date.parse(start);
    const finished = timing.finishedAt !== undefined;
    if (!end && finished)
      return { label, offsetMs: startMs - origin, durationMs: undefined, open: false };
    const endMs = end ? Date.parse(end) : now;
    return {
      label,
      offsetMs: startMs - origin,
      durationMs: Math.max(0, endMs - startMs),
      open: !end,
    };
  });
}

export function Waterfall({ timing, now = Date.now() }: { timing: BuildTiming; now?: number }) {
  const bars = waterfallBars(timing, now);
  const span = Math.max(1, ...bars.map((b) => (b.offsetMs ?? 0) + (b.durationMs ?? 0)));
  return (
    <table className="waterfall" aria-label="Timing waterfall">
      <tbody>
        {bars.map((bar) => (
          <tr key={bar.label}>
            <th scope="row">{bar.label}</th>
            <td className="bar-cell">
              {bar.offsetMs !== undefined && bar.durationMs !== undefined ? (
                <span
                  className={bar.open ? 'bar open' : 'bar'}
                  style={{
                    marginLeft: `${(bar.offsetMs / span) * 100}%`,
                    width: `max(2px, ${(bar.durationMs / span) * 100}%)`,
                  }}
                />
              ) : null}
            </td>
            <td className="num">
              {bar.durationMs !== undefined
                ? `${formatDuration(bar.durationMs)}${bar.open ? ' …' : ''}`
                : bar.offsetMs !== undefined
                  ? 'skipped'
                  : 'not reached'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
