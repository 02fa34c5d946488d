import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMITS } from './limits.js';
import { applyAnnotationChanges } from './annotations.js';
import type { AnnotationChange, BuildAnnotations } from './annotations.js';

const noted: BuildAnnotations = {
  annotations: { 'sluice.log-limit': 'The build log reached its limit', owner: 'web' },
  imageAnnotations: {},
};

function change(fields: Partial<AnnotationChange>): AnnotationChange {
  return { entity: 'build', set: {}, unset: [], ...fields };
}

test("a pipeline's changes apply in order: set, then unset; the current annotations are kept", () => {
  const result = applyAnnotationChanges(noted, [
    change({ set: { stage: 'qa', owner: 'ops' } }),
    change({ unset: ['stage'] }),
    change({ entity: 'image', image: 'web:1', set: { scanned: true } }),
  ]);
  assert.ok(result.ok);
  assert.deepEqual(result.value.annotations, {
    'sluice.log-limit': 'The build log reached its limit',
    owner: 'ops',
  });
  assert.deepEqual(result.value.imageAnnotations, { 'web:1': { scanned: true } });
  assert.equal(noted.annotations.owner, 'web');
});

test('names under sluice. are refused whether set or unset, on the build or an image', () => {
  for (const refused of [
    change({ unset: ['sluice.log-limit'] }),
    change({ set: { 'sluice.log-limit': 'all fine' } }),
    change({ entity: 'image', image: 'web:1', set: { 'sluice.scan': 'ok' } }),
  ]) {
    const result = applyAnnotationChanges(noted, [refused]);
    assert.equal(result.ok, false);
    assert.match(
      result.ok ? '' : result.problem,
      /^sluice\.(log-limit|scan): names starting with "sluice\." are kept for Sluice's own annotations/,
    );
  }
  // A name that merely contains the word is the pipeline's.
  assert.ok(applyAnnotationChanges(noted, [change({ set: { 'my.sluice.note': 1 } })]).ok);
});

test('the limits on names per entity and images are kept', () => {
  const many = Object.fromEntries(
    Array.from({ length: LIMITS.annotationsPerEntity }, (_, i) => [`a${i}`, i]),
  );
  const result = applyAnnotationChanges(noted, [change({ set: many })]);
  assert.equal(result.ok, false);
  const max = LIMITS.annotationsPerEntity;
  assert.match(
    result.ok ? '' : result.problem,
    new RegExp(`would hold ${max + 2} annotations, more than ${max}$`),
  );
});
