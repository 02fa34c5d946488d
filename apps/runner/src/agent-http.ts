/**
 * The agent's own small HTTP server: `/healthz` (liveness: 200 while the agent is working: it
 * polls and is not shutting down; 503 otherwise, with the reason and each runtime's last
 * health), `/readyz` (readiness: 200 while its last call to the control plane was answered; 503
 * before the first answer and after a failed call, with the control plane's URL and why, so a
 * pod that cannot reach it is not Ready) and `/metrics` (Prometheus text). It listens on the
 * pod's network only; it holds no secrets.
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
  /** The control plane's URL, named when it cannot be reached. */
  controlPlaneUrl: string;
  /** When a call to the control plane was last answered, or undefined before the first. */
  lastContactAt: number | undefined;
  /** Why the last call failed, when it did after the last answer (cleared by the next answer). */
  contactError: string | undefined;
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

/** Whether the agent is connected: its control plane answered its last call. */
export function readyVerdict(status: AgentStatus) {
  if (status.stopping) return { ok: false, reason: 'The agent is shutting down' };
  const where = `the control plane at ${status.controlPlaneUrl}`;
  if (status.contactError !== undefined)
    return { ok: false, reason: `Cannot reach ${where}: ${status.contactError}` };
  if (status.lastContactAt === undefined)
    return { ok: false, reason: `Not connected to ${where} yet` };
  return { ok: true, reason: `Connected to ${where}` };
}

export async function startAgentHttp(options: AgentHttpOptions): Promise<AgentHttp> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' || path === '/readyz') {
      const status = options.status();
      const verdict =
        path === '/healthz' ? healthVerdict(status, options.stuckAfterMs) : readyVerdict(status);
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
    res.end('Not found: the agent serves /healthz, /readyz and /metrics\n');
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
