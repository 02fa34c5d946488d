// Closed-loop HTTP clients: each sends its request, waits for the whole answer, and sends the
// next, over one keep-alive connection of its own (node:http), until the deadline. Every answer
// is recorded with its route, status and latency.
import http from 'node:http';
import { percentile } from '../dispatch/bench-server.mjs';

/** The clients of one phase: `list` GETs of a page of builds and `create` POSTs of a build. */
export function apiClients(pipelineId, list, create) {
  const get = { route: 'GET /api/v1/builds', method: 'GET', path: '/api/v1/builds' };
  const post = {
    route: 'POST /api/v1/pipelines/:id/builds',
    method: 'POST',
    path: `/api/v1/pipelines/${pipelineId}/builds`,
    body: { branch: 'main', variables: { BENCH: 'load' } },
  };
  return [...Array(list).fill(get), ...Array(create).fill(post)];
}

/**
 * Runs `clients` — `[{ route, method, path, body? }, …]`, one loop each — for `seconds`, or
 * until `options.signal` is aborted; returns per-route figures.
 */
export async function runClients(url, token, clients, seconds, options = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients.length });
  const { hostname, port } = new URL(url);
  const deadline = performance.now() + seconds * 1000;
  const samples = new Map(); // route → { latencies: [], errors: Map(status → n) }
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      const record = samples.get(client.route) ?? { latencies: [], errors: new Map(), bytes: 0 };
      samples.set(client.route, record);
      while (performance.now() < deadline && options.signal?.aborted !== true) {
        const sent = performance.now();
        const { status, bytes } = await send(agent, { hostname, port, token, ...client });
        record.bytes += bytes;
        if (status >= 200 && status < 300) record.latencies.push(performance.now() - sent);
        else record.errors.set(status, (record.errors.get(status) ?? 0) + 1);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return Object.fromEntries(
    [...samples].map(([route, { latencies, errors, bytes }]) => [
      route,
      figures(latencies, errors, bytes, elapsed),
    ]),
  );
}

function figures(latencies, errors, bytes, elapsed) {
  const round = (x) => (x === undefined ? null : Math.round(x * 10) / 10);
  return {
    req_per_s: round(latencies.length / elapsed),
    p50_ms: round(percentile(latencies, 0.5)),
    p99_ms: round(percentile(latencies, 0.99)),
    // A loop, not Math.max(...latencies): a long phase has more samples than the stack has room.
    max_ms: round(latencies.length ? latencies.reduce((a, b) => (b > a ? b : a)) : undefined),
    n: latencies.length,
    kib_per_answer: round(
      bytes /
        1024 /
        Math.max(1, latencies.length + [...errors.values()].reduce((a, b) => a + b, 0)),
    ),
    errors: Object.fromEntries(errors),
  };
}

/**
 * One request; resolves with the status (0 when the connection failed) and the body's size once
 * the body is read.
 */
function send(agent, { hostname, port, token, method, path, body }) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve) => {
    const request = http.request(
      {
        agent,
        hostname,
        port,
        method,
        path,
        headers: {
          authorization: `Bearer ${token}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk) => (bytes += chunk.length));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
        response.on('error', () => resolve({ status: 0, bytes }));
      },
    );
    request.on('error', () => resolve({ status: 0, bytes: 0 }));
    request.end(payload);
  });
}
