import { afterEach, expect, test } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { Waterfall, waterfallBars } from './waterfall.js';

afterEach(cleanup);

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

test('a finished build: every phase from its start, with its length', () => {
  const bars = waterfallBars(
    {
      queuedAt: at(0),
      electedAt: at(100),
      dispatchedAt: at(300),
      objectsCreatedAt: at(700),
      engineStartedAt: at(2700),
      firstStepStartedAt: at(3000),
      finishedAt: at(10_000),
    },
    t0 + 99_999,
  );
  expect(bars.map((b) => [b.offsetMs, b.durationMs, b.open])).toEqual([
    [0, 100, false],
    [100, 200, false],
    [300, 400, false],
    [700, 2000, false],
    [2700, 300, false],
    [3000, 7000, false],
  ]);
});

test('a running build: the open phase grows to now, later phases are not reached', () => {
  const bars = waterfallBars(
    { queuedAt: at(0), electedAt: at(50), dispatchedAt: at(80) },
    t0 + 1080,
  );
  expect(bars[2]).toMatchObject({ offsetMs: 80, durationMs: 1000, open: true });
  expect(bars.slice(3).every((b) => b.offsetMs === undefined)).toBe(true);
});

test('a build that ended before a phase (cancelled while queued) shows the phase as skipped', () => {
  const bars = waterfallBars({ queuedAt: at(0), finishedAt: at(500) }, t0 + 9000);
  expect(bars[0]).toMatchObject({ offsetMs: 0, durationMs: undefined, open: false });
});

test('the table names each phase with its duration or "not reached"', () => {
  render(<Waterfall timing={{ queuedAt: at(0), electedAt: at(1500) }} now={t0 + 4000} />);
  const table = screen.getByRole('table', { name: 'Timing waterfall' });
  const queued = within(table).getByRole('row', { name: /Queued → elected/ });
  expect(queued.textContent).toContain('1.5s');
  const engine = within(table).getByRole('row', { name: /Objects created → engine started/ });
  expect(engine.textContent).toContain('not reached');
  const open = within(table).getByRole('row', { name: /Elected → dispatched/ });
  expect(open.textContent).toContain('2.5s …');
});
