import { afterEach, expect, test } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AnnotationList } from './annotation-list.js';

afterEach(cleanup);

test("the build's annotations, then each image's, a bare name shown without a value", () => {
  render(
    <AnnotationList
      build={{
        annotations: { tested: true, by: 'alice', flaky: null },
        imageAnnotations: { 'sha256:abc': { CF_QUALITY: false } },
      }}
    />,
  );
  expect(screen.getAllByRole('heading').map((h) => h.textContent)).toEqual([
    'Annotations',
    'Image sha256:abc',
  ]);
  const rows = [...document.querySelectorAll('.annotation')].map((row) =>
    [...row.children].map((cell) => cell.textContent),
  );
  expect(rows).toEqual([
    ['tested', 'true'],
    ['by', 'alice'],
    ['flaky', '—'],
    ['CF_QUALITY', 'false'],
  ]);
});

test('a build without annotations shows nothing', () => {
  const { container } = render(
    <AnnotationList build={{ annotations: {}, imageAnnotations: {} }} />,
  );
  expect(container.innerHTML).toBe('');
});
