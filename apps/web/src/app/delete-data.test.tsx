import { afterEach, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ConflictError } from '@sluice/errors';
import type { DeletedData } from '@sluice/protocol';
import { DeleteData } from './delete-data.js';

afterEach(cleanup);

const COUNTS = { pipelines: 1, builds: 3, logChunks: 40, logBytes: 1_258_291 };

test('the question says what would go; Keep deletes nothing, Yes deletes once', async () => {
  const call = vi.fn((dryRun: 'true' | 'false') =>
    Promise.resolve<DeletedData>({ dryRun: dryRun === 'true', ...COUNTS }),
  );
  const onDeleted = vi.fn();
  render(<DeleteData subject="pipeline web/api" call={call} onDeleted={onDeleted} />);

  fireEvent.click(screen.getByRole('button', { name: 'Delete pipeline web/api' }));
  const question = await screen.findByRole('group', { name: 'Confirm deleting pipeline web/api' });
  expect(question.textContent).toContain(
    'Delete pipeline web/api with 3 builds and 1.2 MiB of logs (40 chunks)? It cannot be undone.',
  );
  expect(call.mock.calls).toEqual([['true']]);
  fireEvent.click(screen.getByRole('button', { name: 'Keep' }));
  expect(screen.queryByRole('group')).toBeNull();
  expect(call.mock.calls).toEqual([['true']]);

  fireEvent.click(screen.getByRole('button', { name: 'Delete pipeline web/api' }));
  await screen.findByRole('group');
  const yes = screen.getByRole('button', { name: 'Yes, delete' });
  fireEvent.click(yes);
  fireEvent.click(yes);
  await waitFor(() => expect(onDeleted).toHaveBeenCalledTimes(1));
  expect(call.mock.calls).toEqual([['true'], ['true'], ['false']]);
  expect(onDeleted).toHaveBeenCalledWith({ dryRun: false, ...COUNTS });
});

test('a refusal (a build not finished) shows with its hint instead of the question', async () => {
  const call = vi.fn(() =>
    Promise.reject(
      new ConflictError(
        'SLUICE_PIPELINE_HAS_ACTIVE_BUILD',
        'Pipeline web/api was not deleted: build bld_1 (#4 of api) is running',
        { hint: 'Cancel it with: sluice cancel bld_1; delete again once it has ended' },
      ),
    ),
  );
  const onDeleted = vi.fn();
  render(<DeleteData subject="pipeline web/api" call={call} onDeleted={onDeleted} />);
  fireEvent.click(screen.getByRole('button', { name: 'Delete pipeline web/api' }));
  const alert = await screen.findByRole('alert');
  expect(alert.textContent).toContain('build bld_1 (#4 of api) is running');
  expect(alert.textContent).toContain('SLUICE_PIPELINE_HAS_ACTIVE_BUILD');
  expect(alert.textContent).toContain('sluice cancel bld_1');
  expect(screen.queryByRole('group')).toBeNull();
  expect(call.mock.calls).toEqual([['true']]);
  expect(onDeleted).not.toHaveBeenCalled();
});
