/**
 * The volume agent's Prometheus metrics, per volume of its node and for the node's volumes disk,
 * from each pass's report (`NodeAgentReport`), on a registry of its own; and the small HTTP
 * server that serves them (`/metrics`) with `/healthz` (200 while passes succeed). A volume gone
 * since the last pass is dropped from the per-volume series, so a retired volume's series end.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Registry } from 'prom-client';
import type { NodeAgentReport } from './node-agent.js';

export class VolumeMetrics {
  readonly registry = new Registry();
  readonly #used: Gauge;
  readonly #mounts: Gauge;
  readonly #lastUsed: Gauge;
  readonly #inUse: Gauge;
  readonly #disk: Gauge;
  readonly #retired: Counter;
  readonly #removed: Counter;
  readonly #passes: Counter;
  /** When the last pass succeeded (ms), for `/healthz`. */
  lastPassAt: number | undefined;
  readonly node: string;

  constructor(node: string) {
    this.node = node;
    const registers = [this.registry];
    const perVolume = ['volume', 'node'];
    this.#used = new Gauge({
      name: 'sluice_volume_used_bytes',
      help: "Bytes a volume's directory holds (allocated blocks, as du counts; walked at most every 10 minutes)",
      labelNames: perVolume,
      registers,
    });
    this.#mounts = new Gauge({
      name: 'sluice_volume_builds',
      help: 'Builds that have had the volume (its mount count)',
      labelNames: perVolume,
      registers,
    });
    this.#lastUsed = new Gauge({
      name: 'sluice_volume_last_used_timestamp_seconds',
      help: "When the volume's last build let it go, or took it (Unix seconds)",
      labelNames: perVolume,
      registers,
    });
    this.#inUse = new Gauge({
      name: 'sluice_volume_in_use',
      help: 'Whether a build has the volume now (1) or it is free for the next matching one (0)',
      labelNames: perVolume,
      registers,
    });
    this.#disk = new Gauge({
      name: 'sluice_volume_disk_usage_ratio',
      help: "Fraction of the volumes' filesystem in use on this node, by resource (space, inodes)",
      labelNames: ['node', 'resource'],
      registers,
    });
    this.#retired = new Counter({
      name: 'sluice_volumes_retired_total',
      help: 'Volumes retired because the disk passed a threshold',
      labelNames: ['node'],
      registers,
    });
    this.#removed = new Counter({
      name: 'sluice_volume_directories_removed_total',
      help: 'Directories removed because their volume was gone',
      labelNames: ['node'],
      registers,
    });
    this.#passes = new Counter({
      name: 'sluice_volume_agent_passes_total',
      help: 'Passes of the volume agent, by outcome (ok, failed)',
      labelNames: ['node', 'outcome'],
      registers,
    });
  }

  observe(report: NodeAgentReport, now = Date.now()): void {
    const node = this.node;
    for (const gauge of [this.#used, this.#mounts, this.#lastUsed, this.#inUse]) gauge.reset();
    for (const volume of report.volumes) {
      const labels = { volume: volume.name, node };
      if (volume.usedBytes !== undefined) this.#used.set(labels, volume.usedBytes);
      this.#mounts.set(labels, volume.mountCount);
      if (volume.lastUsedMs > 0) this.#lastUsed.set(labels, volume.lastUsedMs / 1000);
      this.#inUse.set(labels, volume.inUse ? 1 : 0);
    }
    this.#disk.set({ node, resource: 'space' }, report.usage.space);
    this.#disk.set({ node, resource: 'inodes' }, report.usage.inodes);
    if (report.retired !== undefined) this.#retired.inc({ node });
    if (report.removed.length > 0) this.#removed.inc({ node }, report.removed.length);
    this.#passes.inc({ node, outcome: 'ok' });
    this.lastPassAt = now;
  }

  failed(): void {
    this.#passes.inc({ node: this.node, outcome: 'failed' });
  }
}

/**
 * `/metrics` and `/healthz` on `port` (0: a free one). Healthy while a pass succeeded within
 * `staleAfterMs` of now (or none was due yet).
 */
export async function serveVolumeMetrics(
  metrics: VolumeMetrics,
  options: { port: number; host?: string; staleAfterMs: number; startedAt?: number },
): Promise<{ url: string; close(): Promise<void> }> {
  const startedAt = options.startedAt ?? Date.now();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        },
      );
      return;
    }
    if (path === '/healthz') {
      const since = metrics.lastPassAt ?? startedAt;
      const ok = Date.now() - since <= options.staleAfterMs;
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ok,
          reason: ok
            ? 'Passes succeed'
            : `No successful pass for ${Math.round((Date.now() - since) / 1000)} s`,
        }),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not found: /metrics or /healthz\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
