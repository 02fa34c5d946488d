import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeProgress,
  EXPECTED_GO_CACHE_BYTES,
  formatDuration,
  makeStageLines,
} from './build-progress.js';

test('formatDuration prints seconds, then minutes and seconds', () => {
  assert.equal(formatDuration(4_400), '4s');
  assert.equal(formatDuration(270_000), '4m30s');
  assert.equal(formatDuration(725_000), '12m05s');
});

test('a progress line has the elapsed time, the go cache share, the binaries and the log', () => {
  const line = describeProgress({
    elapsedMs: 270_000,
    goCacheBytes: EXPECTED_GO_CACHE_BYTES / 2,
    binariesDone: 1,
    binariesTotal: 4,
    logPath: '/var/cache/sluice/kubernetes/v1.20.2/build.log',
  });
  assert.equal(
    line,
    'kubernetes build: 4m30s, go cache about 50% (0.8 GB), 1/4 binaries (log: /var/cache/sluice/kubernetes/v1.20.2/build.log)',
  );
});

test('the go cache share never claims 100 % before make finishes', () => {
  const line = describeProgress({
    elapsedMs: 1,
    goCacheBytes: EXPECTED_GO_CACHE_BYTES * 2,
    binariesDone: 0,
    binariesTotal: 4,
    logPath: 'x',
  });
  assert.match(line, /about 99%/);
});

test('make stage headers are joined with the targets listed under them', () => {
  const lines: string[] = [];
  const stages = makeStageLines((line) => lines.push(line));
  for (const text of [
    '+++ [1121 21:25:14] Building go targets for linux/amd64:',
    '    cmd/kube-apiserver',
    '    cmd/kubelet',
    'some compiler chatter',
    '+++ [1121 21:36:05] Placing binaries',
  ]) {
    stages.line(text);
  }
  stages.flush();
  assert.deepEqual(lines, [
    'Building go targets for linux/amd64: cmd/kube-apiserver cmd/kubelet',
    'Placing binaries',
  ]);
});
