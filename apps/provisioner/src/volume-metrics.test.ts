import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveVolumeMetrics, VolumeMetrics } from './volume-metrics.js';

const REPORT = {
  usage: { space: 0.42, inodes: 0.1 },
  removed: ['sluice-vol-old'],
  retired: undefined,
  volumes: [
    {
      name: 'sluice-vol-a',
      usedBytes: 5_000_000,
      mountCount: 3,
      lastUsedMs: 1_700_000_000_000,
      inUse: true,
    },
    { name: 'sluice-vol-b', usedBytes: undefined, mountCount: 1, lastUsedMs: 0, inUse: false },
  ],
};

test('per-volume series from a pass, served on /metrics; a volume gone since ends its series', async () => {
  const metrics = new VolumeMetrics('node-1');
  metrics.observe(REPORT);
  const http = await serveVolumeMetrics(metrics, {
    port: 0,
    host: '127.0.0.1',
    staleAfterMs: 60_000,
  });
  try {
    let text = await (await fetch(`${http.url}/metrics`)).text();
    assert.match(text, /sluice_volume_used_bytes\{volume="sluice-vol-a",node="node-1"\} 5000000/);
    assert.doesNotMatch(
      text,
      /sluice_volume_used_bytes\{volume="sluice-vol-b"/,
      'not measured yet',
    );
    assert.match(text, /sluice_volume_builds\{volume="sluice-vol-a",node="node-1"\} 3/);
    assert.match(
      text,
      /sluice_volume_last_used_timestamp_seconds\{volume="sluice-vol-a",node="node-1"\} 1700000000/,
    );
    assert.match(text, /sluice_volume_in_use\{volume="sluice-vol-a",node="node-1"\} 1/);
    assert.match(text, /sluice_volume_in_use\{volume="sluice-vol-b",node="node-1"\} 0/);
    assert.match(text, /sluice_volume_disk_usage_ratio\{node="node-1",resource="space"\} 0.42/);
    assert.match(text, /sluice_volume_directories_removed_total\{node="node-1"\} 1/);

    metrics.observe({
      ...REPORT,
      removed: [],
      retired: 'sluice-vol-b',
      volumes: [REPORT.volumes[0]!],
    });
    text = await (await fetch(`${http.url}/metrics`)).text();
    assert.doesNotMatch(text, /volume="sluice-vol-b"/, 'the retired volume has no series left');
    assert.match(text, /sluice_volumes_retired_total\{node="node-1"\} 1/);
    assert.match(text, /sluice_volume_agent_passes_total\{node="node-1",outcome="ok"\} 2/);

    const health = await fetch(`${http.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal((await fetch(`${http.url}/nope`)).status, 404);
  } finally {
    await http.close();
  }
});

test('/healthz is 503 once no pass has succeeded for longer than allowed, naming how long', async () => {
  const metrics = new VolumeMetrics('node-1');
  metrics.failed();
  const http = await serveVolumeMetrics(metrics, {
    port: 0,
    host: '127.0.0.1',
    staleAfterMs: 1000,
    startedAt: Date.now() - 5000,
  });
  try {
    const health = await fetch(`${http.url}/healthz`);
    assert.equal(health.status, 503);
    assert.match(
      ((await health.json()) as { reason: string }).reason,
      /No successful pass for 5 s/,
    );
    const text = await (await fetch(`${http.url}/metrics`)).text();
    assert.match(text, /sluice_volume_agent_passes_total\{node="node-1",outcome="failed"\} 1/);
  } finally {
    await http.close();
  }
});
