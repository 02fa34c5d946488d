/**
 * `/metrics` on a listener of its own (`SLUICE_METRICS_PORT`), apart from the API port: the
 * API may face the internet through an Ingress, the metrics stay on the pod network for
 * Prometheus, without a token, as the agent's do. Anything but `GET /metrics` is 404.
 * @module
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@sluice/log';
import type { ServerMetrics } from './server-metrics.js';

export interface MetricsListenerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  metrics: ServerMetrics;
  log: Logger;
}

export interface MetricsListener {
  /** `http://host:port`, the real port when 0 was asked. */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(
  options: MetricsListenerOptions,
): Promise<MetricsListener> {
  const { metrics, log } = options;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not found: this listener serves GET /metrics only\n');
      return;
    }
    metrics.render().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        log.error('rendering the metrics failed', { error: String(err) });
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('Rendering the metrics failed; the server log has the cause\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
