/**
 * What the replica and chaos e2e tests share: a TCP load balancer in front of several
 * `sluice server` processes (round-robin per connection; a backend that refuses is skipped, as
 * a load balancer's health check would), `sluice agent --local-runtime` as deployed, and a
 * registry of runs on a host directory, where each run of a build's step leaves one file named
 * for the build, so a build run twice shows as two files.
 * @module
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { isSluiceError } from '@sluice/errors';
import { createClient, FINISHED_STATUSES } from '@sluice/protocol';
import type { Build, SluiceClient } from '@sluice/protocol';
import { startSluice } from './cli-harness.js';
import type { RunningCli } from './cli-harness.js';

export interface LoadBalancer {
  url: string;
  /** Connections from now on go to these (`http://host:port`). */
  setBackends(urls: readonly string[]): void;
  close(): Promise<void>;
}

export async function startLoadBalancer(backends: readonly string[]): Promise<LoadBalancer> {
  let targets = backends.map((u) => new URL(u));
  let turn = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    const connect = (tries: number) => {
      const target = targets[turn++ % targets.length];
      if (target === undefined || tries === 0) return void client.destroy();
      const upstream = createConnection(Number(target.port), target.hostname);
      upstream.once('error', () => connect(tries - 1));
      upstream.once('connect', () => {
        upstream.removeAllListeners('error');
        track(upstream);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
    };
    connect(targets.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setBackends(urls) {
      targets = urls.map((u) => new URL(u));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on right now, for a server whose URL must be known before it starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `sluice agent` serving the local runtime `local`, its engines' state in `stateDir`. */
export function startLocalAgent(options: {
  serverUrl: string;
  token: string;
  stateDir: string;
  concurrency: number;
}): RunningCli {
  return startSluice(
    [
      'agent',
      '--local-runtime',
      'local',
      '--server-url',
      options.serverUrl,
      '--state-dir',
      options.stateDir,
      '--concurrency',
      String(options.concurrency),
      '--http-port',
      '-1',
      '--poll-wait',
      '5',
    ],
    { env: { SLUICE_AGENT_TOKEN: options.token } },
  );
}

/**
 * The runtime environment `local` (the account default) binding `runsDir` at /runs in steps,
 * and the account's concurrency limit: what two cores carry (each build is an engine process,
 * a container and a Docker network, of which the default address pools hold about 30).
 */
export async function createRecordingRuntime(
  admin: SluiceClient,
  runsDir: string,
  maxConcurrentBuilds: number,
) {
  await admin.call('updateAccount', { body: { maxConcurrentBuilds } });
  const spec = {
    metadata: { name: 'local' },
    runtimeScheduler: { type: 'LocalDocker' },
    dockerDaemonScheduler: {
      type: 'LocalDocker',
      userVolumes: { runs: { hostPath: { path: runsDir } } },
      userVolumeMounts: { runs: { mountPath: '/runs' } },
    },
  };
  await admin.call('createRuntimeEnvironment', { body: { name: 'local', spec } });
  await admin.call('setDefaultRuntimeEnvironment', { params: { name: 'local' } });
}

/** A pipeline whose one step records its run in /runs, after printing `lines` numbered lines. */
export function recordingPipeline(lines = 0): string {
  const print = lines > 0 ? [`for i in $(seq 1 ${lines}); do echo line $i; sleep 0.05; done`] : [];
  const commands = [...print, 'mktemp "/runs/$CF_BUILD_ID.XXXXXX"'];
  return [
    'version: "1.0"',
    'steps:',
    '  record:',
    '    image: sluice/busybox:1',
    '    commands:',
    ...commands.map((c) => `      - ${JSON.stringify(c)}`),
    '',
  ].join('\n');
}

/** How many times each build's step ran, from the files in `runsDir`. */
export function runsByBuild(runsDir: string): Map<string, number> {
  const runs = new Map<string, number>();
  for (const name of readdirSync(runsDir)) {
    const buildId = name.slice(0, name.lastIndexOf('.'));
    runs.set(buildId, (runs.get(buildId) ?? 0) + 1);
  }
  return runs;
}

/** Builds (by id) that ran other than once: none when every build ran exactly once. */
export function notRunOnce(buildIds: readonly string[], runsDir: string): string[] {
  const runs = runsByBuild(runsDir);
  const odd = buildIds.filter((id) => runs.get(id) !== 1).map((id) => `${id}×${runs.get(id) ?? 0}`);
  const strangers = [...runs.keys()].filter((id) => !buildIds.includes(id));
  return [...odd, ...strangers.map((id) => `${id} (not a build of the test)`)];
}

/** Every build of the account, paged through. */
export async function allBuilds(client: SluiceClient): Promise<Build[]> {
  const builds: Build[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.call('listBuilds', { query: { limit: 100, cursor } });
    builds.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return builds;
}

/** Polls until every build of the account has finished (or `timeoutMs`); the builds. */
export async function waitAllFinished(
  client: SluiceClient,
  timeoutMs: number,
  expected: number,
): Promise<Build[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const builds = await allBuilds(client);
    const open = builds.filter((b) => !FINISHED_STATUSES.includes(b.status));
    if (builds.length >= expected && open.length === 0) return builds;
    assert.ok(
      Date.now() < deadline,
      `${open.length} of ${builds.length} builds still open after ${timeoutMs} ms: ${open
        .slice(0, 5)
        .map((b) => `${b.id} ${b.status} ${b.reason ?? ''}`)
        .join('; ')}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Clients of several replicas: each call goes to the next, and to the others on a connection error. */
export function roundRobin(urls: readonly string[], token: string) {
  const clients = urls.map((baseUrl) => createClient({ baseUrl, token }));
  let turn = 0;
  return async function call<T>(fn: (client: SluiceClient) => Promise<T>): Promise<T> {
    const first = turn++;
    let lastError: unknown;
    for (let i = 0; i < clients.length; i++) {
      const client = clients[(first + i) % clients.length] as SluiceClient;
      try {
        return await fn(client);
      } catch (err) {
        if (!isConnectionError(err)) throw err;
        lastError = err;
      }
    }
    throw lastError;
  };
}

/** The request never got an answer: refused, reset, or cut mid-way. */
function isConnectionError(err: unknown): boolean {
  return isSluiceError(err) && err.code === 'SLUICE_API_UNREACHABLE';
}
