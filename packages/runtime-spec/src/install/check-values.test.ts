import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { checkInstallValues, CHECKED_KEYWORDS } from './check-values.js';
import { RUNTIME_VALUES_SCHEMA } from './values-schema.js';

// From packages/runtime-spec/dist/install/ to the repository's chart.
const chart = (file: string) =>
  readFileSync(
    fileURLToPath(new URL(`../../../../charts/sluice-runtime/${file}`, import.meta.url)),
    'utf8',
  );

test("the schema is the chart's values.schema.json, and uses only the keywords the check knows", () => {
  assert.deepEqual(
    RUNTIME_VALUES_SCHEMA,
    JSON.parse(chart('values.schema.json')),
    'charts/sluice-runtime/values.schema.json and src/install/values-schema.ts must be equal: change both',
  );
  const used = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null)
      for (const [key, value] of Object.entries(node)) {
        used.add(key);
        if (key === 'properties') Object.values(value as object).forEach(walk);
        else walk(value);
      }
  };
  walk(RUNTIME_VALUES_SCHEMA);
  const unknown = [...used].filter((k) => !(CHECKED_KEYWORDS as readonly string[]).includes(k));
  assert.deepEqual(unknown, [], 'teach checkInstallValues these keywords');
});

test("the chart's own values.yaml passes the whole check", () => {
  assert.deepEqual(checkInstallValues(parse(chart('values.yaml'))), []);
});

test('every problem at once, by the path --set-value uses, a typo with the value it meant', () => {
  const issues = checkInstallValues(
    {
      volumes: { enabeld: true, spares: 0, diskThreshold: 'high', storageClass: 'Fast_SSD' },
      agent: {
        replicas: 1.5,
        image: { pullPolicy: 'Sometimes' },
        nodeSelector: { pool: 3 },
        tolerations: ['ci'],
      },
      proxy: { httpProxy: 'http://proxy:3128' },
      surprise: {},
    },
    { partial: true },
  );
  assert.deepEqual(issues, [
    {
      path: 'volumes.enabeld',
      message: 'is not a value of the chart; did you mean volumes.enabled?',
    },
    { path: 'volumes.spares', message: 'must be at least 1, got 0' },
    { path: 'volumes.diskThreshold', message: 'must be a number, got string "high"' },
    {
      path: 'volumes.storageClass',
      message: '"Fast_SSD" must be empty or match ^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
    },
    { path: 'agent.replicas', message: 'must be an integer, got number 1.5' },
    {
      path: 'agent.image.pullPolicy',
      message: 'must be one of "Always", "IfNotPresent", "Never", got string "Sometimes"',
    },
    { path: 'agent.nodeSelector.pool', message: 'must be a string, got number 3' },
    { path: 'agent.tolerations.0', message: 'must be a map, got string "ci"' },
    { path: 'surprise', message: 'is not a value of the chart' },
  ]);
});

test('partial values may leave out what the defaults hold; whole ones may not', () => {
  assert.deepEqual(checkInstallValues({ agent: { replicas: 2 } }, { partial: true }), []);
  const whole = checkInstallValues({ agent: { replicas: 2 } });
  assert.ok(whole.some((i) => i.path === 'controlPlane' && i.message === 'is required'));
  assert.ok(whole.some((i) => i.path === 'agent.image' && i.message === 'is required'));
  assert.deepEqual(checkInstallValues('agent.replicas=2'), [
    { path: '', message: 'must be a map, got string "agent.replicas=2"' },
  ]);
});
