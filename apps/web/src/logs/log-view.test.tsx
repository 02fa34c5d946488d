import { afterEach, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { LogLineRow, LogView as View, ROW_HEIGHT } from './log-view.js';
import type { LogViewProps } from './log-view.js';

afterEach(cleanup);

/** The view over plain lines, one row each, as the panel draws a log without sections. */
function LogView(
  props: Omit<LogViewProps, 'rowCount' | 'renderRow' | 'currentRow'> & {
    lines: readonly string[];
    search?: string;
    currentLine?: number;
    onSelectLine?: (line: number) => void;
  },
) {
  const { lines, search = '', currentLine, onSelectLine, ...rest } = props;
  return (
    <View
      {...rest}
      rowCount={lines.length}
      currentRow={currentLine === undefined ? undefined : currentLine - 1}
      renderRow={(i, top) => (
        <LogLineRow
          key={i}
          number={i + 1}
          top={top}
          text={lines[i] ?? ''}
          search={search}
          current={currentLine === i + 1}
          onSelect={onSelectLine}
        />
      )}
    />
  );
}

const ESC = String.fromCharCode(27);

test('ANSI colours become styled spans and the escapes are gone from the text', () => {
  const { container } = render(
    <LogView lines={[`${ESC}[31mred${ESC}[0m plain`, `${ESC}[1;32mbold green${ESC}[0m`]} />,
  );
  const red = container.querySelector('.ansi-fg-1');
  expect(red?.textContent).toBe('red');
  const green = container.querySelector('.ansi-fg-2');
  expect(green?.className).toContain('ansi-bold');
  expect(green?.textContent).toBe('bold green');
  expect(screen.getByRole('log').textContent).not.toContain(ESC);
  expect(screen.getByRole('log').textContent).toContain('red plain');
});

test('a log of 100,000 lines renders only the rows in sight and scrolls to any of them', () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i + 1} ${ESC}[33mwarn${ESC}[0m`);
  const { container } = render(<LogView lines={lines} />);
  const log = screen.getByRole('log');
  const spacer = log.firstElementChild as HTMLElement;
  expect(spacer.style.height).toBe(`${100_000 * ROW_HEIGHT}px`);
  expect(container.querySelectorAll('.log-line').length).toBeLessThan(200);
  expect(container.querySelector('[data-line="100000"]')).toBeNull();

  fireEvent.scroll(log, { target: { scrollTop: 50_000 * ROW_HEIGHT } });
  const row = container.querySelector('[data-line="50001"]');
  expect(row?.textContent).toContain('line 50001 warn');
  expect(container.querySelector('[data-line="1"]')).toBeNull();
  expect(container.querySelectorAll('.log-line').length).toBeLessThan(200);
});

test('follow keeps the last line in view as lines arrive; scrolling up turns it off', () => {
  const lines = Array.from({ length: 5000 }, (_, i) => `l${i + 1}`);
  const onFollowChange = vi.fn();
  const { container, rerender } = render(
    <LogView lines={lines} version={1} follow onFollowChange={onFollowChange} />,
  );
  expect(container.querySelector('[data-line="5000"]')).not.toBeNull();
  lines.push('l5001', 'l5002');
  rerender(<LogView lines={lines} version={2} follow onFollowChange={onFollowChange} />);
  expect(container.querySelector('[data-line="5002"]')?.textContent).toContain('l5002');

  fireEvent.scroll(screen.getByRole('log'), { target: { scrollTop: 0 } });
  expect(onFollowChange).toHaveBeenCalledWith(false);
});

test('search marks every match; a line number links to #L<n> and selects it', () => {
  const onSelectLine = vi.fn();
  const { container } = render(
    <LogView lines={['alpha beta', 'Beta gamma beta']} search="beta" onSelectLine={onSelectLine} />,
  );
  const marks = [...container.querySelectorAll('mark')].map((m) => m.textContent);
  expect(marks).toEqual(['beta', 'Beta', 'beta']);
  const link = screen.getByRole('link', { name: '2' });
  expect(link.getAttribute('href')).toBe('#L2');
  fireEvent.click(link);
  expect(onSelectLine).toHaveBeenCalledWith(2);
});

test('a current line is brought into view and marked', () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => `n${i + 1}`);
  const { container } = render(<LogView lines={lines} currentLine={12_345} />);
  const row = container.querySelector('[data-line="12345"]');
  expect(row?.className).toContain('current');
});

test("stderr is marked, the engine's lines styled apart, a step label and a time shown", () => {
  const { container } = render(
    <View
      rowCount={2}
      renderRow={(i, top) => (
        <LogLineRow
          key={i}
          number={i + 1}
          top={top}
          text={i === 0 ? 'boom' : 'The step exited with code 3'}
          stream={i === 0 ? 'stderr' : 'system'}
          label="unit"
          time="12:00:01.250"
          search=""
          current={false}
          onSelect={undefined}
        />
      )}
    />,
  );
  const [first, second] = container.querySelectorAll('.log-line');
  expect(first?.className).toContain('stream-stderr');
  expect(first?.querySelector('[aria-label="stderr"]')).not.toBeNull();
  expect(second?.className).toContain('stream-system');
  expect(first?.querySelector('.step-label')?.textContent).toBe('unit');
  expect(first?.querySelector('.ts')?.textContent).toBe('12:00:01.250');
});
