/**
 * The agent's own small HTTP server: `/healthz` (200 while the agent is working: it polls and
 * is not shutting down; 503 otherwise, with the reason and each runtime's last health) and
 * `/metrics` (Prometheus text). It listens on the pod's network only; it holds no secrets.
 * @module
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentHealth } from '@sluice/protocol';
import type { AgentMetrics } from './agent-metrics.js';

export interface AgentStatus {
  stopping: boolean;
  /** When a poll last returned (ms since epoch), or undefined before the first. */
  lastPollAt: number | undefined;
  startedAt: number;
  health: AgentHealth | undefined;
  tasksHeld: number;
  buildsActive: number;
}

export interface AgentHttpOptions {
  host: string;
  port: number;
  metrics: AgentMetrics;
  status(): AgentStatus;
  /** A poll that has not returned for this long means the loop is stuck. */
  stuckAfterMs: number;
}

export interface AgentHttp {
  url: string;
  close(): Promise<void>;
}

export function healthVerdict(status: AgentStatus, stuckAfterMs: number, now = Date.now()) {
  if (status.stopping) return { ok: false, reason: 'The agent is shutting down' };
  const since = status.lastPollAt ?? status.startedAt;
  if (now - since > stuckAfterMs)
    return {
      ok: false,
      reason: `No answer from the control plane for ${Math.round((now - since) / 1000)} s`,
    };
  return { ok: true, reason: 'Polling for tasks' };
}

export async function startAgentHttp(options: AgentHttpOptions): Promise<AgentHttp> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      const status = options.status();
      const verdict = healthVerdict(status, options.stuckAfterMs);
      res.writeHead(verdict.ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...verdict, ...status }));
      return;
    }
    if (path === '/metrics') {
      options.metrics.render().then(
        (text) => {
          res.writeHead(200, { 'content-type': options.metrics.registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(String(err));
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not found: the agent serves /healthz and /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
