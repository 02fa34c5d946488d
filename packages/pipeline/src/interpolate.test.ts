import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpolate, maskPlaceholders, referencedVariables } from './interpolate.js';

const vars: Record<string, string> = {
  CF_BRANCH: 'main',
  EMPTY: '',
  'steps.build.result': 'success',
  DOLLAR: '$& ${{CF_BRANCH}}',
};
const lookup = (name: string) => vars[name];

test('a known name is replaced by its value', () => {
  assert.equal(interpolate('branch ${{CF_BRANCH}}', lookup), 'branch main');
});

test('an unknown name stays as written, so "is it set" can be tested', () => {
  assert.equal(interpolate('${{NOPE}}/x', lookup), '${{NOPE}}/x');
});

test('several placeholders, side by side and repeated, are all replaced', () => {
  assert.equal(
    interpolate('${{CF_BRANCH}}${{CF_BRANCH}}-${{NOPE}}-${{EMPTY}}!', lookup),
    'mainmain-${{NOPE}}-!',
  );
});

test('member paths and whitespace inside the braces are accepted', () => {
  assert.equal(interpolate('${{steps.build.result}}', lookup), 'success');
  assert.equal(interpolate('${{ CF_BRANCH }} ${{\tCF_BRANCH\t}}', lookup), 'main main');
});

test('values are inserted literally and not expanded again', () => {
  assert.equal(interpolate('[${{DOLLAR}}]', lookup), '[$& ${{CF_BRANCH}}]');
});

test('text that only looks like a placeholder is left alone', () => {
  for (const text of ['${CF_BRANCH}', '{{CF_BRANCH}}', '${{}}', '${{1X}}', '${{CF_BRANCH}']) {
    assert.equal(interpolate(text, lookup), text);
  }
});

test('referencedVariables lists names in order of appearance', () => {
  assert.deepEqual(referencedVariables('${{A}} ${{ steps.x.y }} ${{A}} $B'), [
    'A',
    'steps.x.y',
    'A',
  ]);
  assert.deepEqual(referencedVariables('no placeholders'), []);
});

test('maskPlaceholders keeps the length and every other character in place', () => {
  const text = '"${{CF_BRANCH}}" == "main" && ${{ X }} > 1';
  const masked = maskPlaceholders(text);
  assert.equal(masked.length, text.length);
  assert.equal(masked, '"______________" == "main" && ________ > 1');
  assert.equal(maskPlaceholders('plain'), 'plain');
});
