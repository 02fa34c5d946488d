import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepCleanReason, overThreshold, removable } from './clean-policy.js';
import type { DiskUsage, Inventory } from './clean-policy.js';
import { emptyState, markCleaned, parseState, reconcile, recordBuild } from './cleaner-state.js';
import type { CleanerSettings } from './cleaner-settings.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2030, 0, 1);
const SETTINGS: CleanerSettings = {
  cleanPeriodSeconds: 6 * 3600,
  cleanPeriodBuilds: 5,
  imageRetainSeconds: 4 * 3600,
  volumeRetainSeconds: 4 * 3600,
  diskUsageThreshold: 0.8,
  inodeUsageThreshold: 0.8,
  background: true,
};
const LOW: DiskUsage = { disk: 0.5, inodes: 0.1, usedBytes: 50, totalBytes: 100 };

test('a deep clean is due for any one of the four reasons of reference §3.4, and only then', () => {
  const fresh = markCleaned(emptyState(T0), T0, { pruned: false });
  assert.equal(deepCleanReason(fresh, LOW, SETTINGS, T0 + 5 * HOUR), undefined);
  assert.match(deepCleanReason(fresh, LOW, SETTINGS, T0 + 6 * HOUR) ?? '', /21600 s ago/);
  let built = fresh;
  for (let i = 0; i < 5; i++) built = recordBuild(built, `b${i}`, T0);
  assert.match(deepCleanReason(built, LOW, SETTINGS, T0) ?? '', /5 builds since the last clean/);
  const full = { ...LOW, disk: 0.81 };
  assert.match(deepCleanReason(fresh, full, SETTINGS, T0) ?? '', /disk 81 % used, above 80 %/);
  const inodes = { ...LOW, inodes: 0.9 };
  assert.match(overThreshold(inodes, SETTINGS) ?? '', /inodes 90 % used/);
  assert.equal(
    overThreshold({ ...LOW, disk: 0.8 }, SETTINGS),
    undefined,
    'at the threshold is not above',
  );
});

test('removable: past the retain period and unused only; the hard prune ignores the period, never what a container uses', () => {
  const image = (id: string, tag: string) => ({ id, repoTags: [tag], size: 1 });
  const inventory: Inventory = {
    images: [
      image('sha256:old', 'old:1'),
      image('sha256:new', 'new:1'),
      image('sha256:run', 'run:1'),
      image('sha256:box', 'busybox:1'),
    ],
    volumes: [
      { name: 'old-v', labels: {} },
      { name: 'run-v', labels: {} },
      { name: 'ws', labels: {} },
    ],
    containers: [
      {
        id: 'c',
        name: 'c',
        state: 'exited',
        imageId: 'sha256:run',
        volumes: ['run-v'],
        labels: {},
      },
    ],
  };
  const state = {
    ...emptyState(T0),
    images: { 'sha256:old': T0, 'sha256:new': T0 + 3 * HOUR, 'sha256:run': T0, 'sha256:box': T0 },
    volumes: { 'old-v': T0, 'run-v': T0, ws: T0 },
  };
  const protect = { images: ['busybox:1'], volumes: ['ws'] };
  const now = T0 + 5 * HOUR;
  const retained = removable(inventory, state, {
    settings: SETTINGS,
    protect,
    now,
    ignoreRetention: false,
  });
  assert.deepEqual(
    retained.images.map((i) => i.id),
    ['sha256:old'],
  );
  assert.deepEqual(
    retained.volumes.map((v) => v.name),
    ['old-v'],
  );
  const hard = removable(inventory, state, {
    settings: SETTINGS,
    protect,
    now,
    ignoreRetention: true,
  });
  assert.deepEqual(
    hard.images.map((i) => i.id),
    ['sha256:old', 'sha256:new'],
  );
  assert.deepEqual(
    hard.volumes.map((v) => v.name),
    ['old-v'],
  );
  // While a build runs, what it used (or brought) since it started stays even in a hard prune.
  const during = removable(inventory, state, {
    settings: SETTINGS,
    protect,
    now,
    ignoreRetention: true,
    keepUsedSince: T0 + 2 * HOUR,
  });
  assert.deepEqual(
    during.images.map((i) => i.id),
    ['sha256:old'],
  );
});

test('the bookkeeping: what is new is dated now, what is gone is forgotten, a foreign file starts afresh', () => {
  const seen = reconcile(
    { ...emptyState(T0), images: { 'sha256:gone': T0, 'sha256:kept': T0 } },
    { images: ['sha256:kept', 'sha256:new'], volumes: ['v'] },
    T0 + HOUR,
  );
  assert.deepEqual(seen.images, { 'sha256:kept': T0, 'sha256:new': T0 + HOUR });
  assert.deepEqual(seen.volumes, { v: T0 + HOUR });
  assert.deepEqual(parseState(JSON.stringify(seen), 0).state, seen);
  assert.equal(
    parseState('{"version":7}', T0).problem,
    'the bookkeeping file has an unknown format',
  );
  assert.equal(parseState('not json', T0).problem, 'the bookkeeping file is not JSON');
  assert.equal(parseState(undefined, T0).state.created, T0);
});
