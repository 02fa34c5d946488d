/**
 * The engine's side of a Kubernetes warm-pool pod (apps/runner/src/backends/kubernetes/warm-pool.ts): the
 * engine starts with its daemon beside it in the pod, before any build exists, loads and warms
 * up, waits until the daemon answers on the pod's socket, warms the daemon up too (its carried
 * images loaded, and the build's network and sandbox made ahead: containers/daemon-warm-up.ts),
 * and only then listens on its handover port (the pod's readiness probe: a Ready pool pod can
 * run a build at once). Its agent takes the
 * pod for a build and POSTs the build's variables with the pod's key (a file from the pod's
 * Secret) as a bearer token, over TLS with the pod's own certificate (from the same Secret; an
 * agent that made the pod without one gets plain HTTP); the engine takes them into its
 * environment, closes the port and
 * runs the build as an engine pod would. Anything but one well-formed, keyed POST is refused,
 * and only the first build is taken.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DockerClient } from '@sluice/docker';
import { dockerEndpointFrom } from '@sluice/docker/endpoint';
import { adoptEngineEnvironment, engineDockerSettings } from './config.js';
import type { PoolEngineSettings } from './config.js';

export { poolEngineSettings } from './config.js';

const MAX_BODY_BYTES = 1 << 20;
const DOCKER_POLL_MS = 200;
const WARM_UP_MS = 5_000;
const DAEMON_WARM_UP_MS = 10_000;

/** Resolves once a build's variables are in this process's environment. */
export async function awaitPoolHandover(
  settings: PoolEngineSettings,
  warmUp: {
    engine?: () => Promise<void>;
    daemon?: (docker: DockerClient) => Promise<unknown>;
  } = {},
): Promise<void> {
  const key = readFileSync(settings.keyFile, 'utf8').trim();
  const tls =
    settings.tls === undefined
      ? undefined
      : { cert: readFileSync(settings.tls.certFile), key: readFileSync(settings.tls.keyFile) };
  await Promise.race([
    warmUp.engine?.(),
    new Promise((resolve) => setTimeout(resolve, WARM_UP_MS).unref()),
  ]);
  const docker = await daemonAnswers();
  // Bounded as the engine's is: a daemon that stalls here does not keep the pod unready.
  await Promise.race([
    warmUp.daemon?.(docker),
    new Promise((resolve) => setTimeout(resolve, DAEMON_WARM_UP_MS).unref()),
  ]);
  const env = await new Promise<Record<string, string>>((resolve) => {
    let taken = false;
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      readHandover(req, res, key, () => taken)
        .then((vars) => {
          if (vars === undefined || taken) return;
          taken = true;
          server.close();
          resolve(vars);
        })
        // A request that broke off mid-body hands over nothing; the engine keeps waiting.
        .catch(() => res.destroy());
    };
    const server = tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
    server.listen(settings.port);
  });
  adoptEngineEnvironment(env);
}

/** Waits until the daemon beside the engine answers: until then, the pod is not Ready. */
async function daemonAnswers(): Promise<DockerClient> {
  const docker = DockerClient.create(dockerEndpointFrom(engineDockerSettings()));
  for (;;) {
    try {
      await docker.ping();
      return docker;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, DOCKER_POLL_MS));
    }
  }
}

/** The variables of a keyed, well-formed handover; undefined (answered) for anything else. */
async function readHandover(
  req: IncomingMessage,
  res: ServerResponse,
  key: string,
  taken: () => boolean,
): Promise<Record<string, string> | undefined> {
  const refuse = (status: number) => {
    res.writeHead(status).end();
    return undefined;
  };
  if (req.method !== 'POST' || req.url !== '/handover') return refuse(404);
  if (!sameSecret(req.headers.authorization ?? '', `Bearer ${key}`)) return refuse(401);
  if (taken()) return refuse(409);
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return refuse(413);
    chunks.push(chunk);
  }
  const vars = handoverVariables(Buffer.concat(chunks).toString('utf8'));
  if (vars === undefined) return refuse(400);
  // The port closes behind this answer: nothing keeps the connection open.
  res.writeHead(204, { connection: 'close' }).end();
  return vars;
}

/** `{ type: 'build', env: { NAME: 'value', ... } }`, as the agent sends it. */
function handoverVariables(text: string): Record<string, string> | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { type, env } = (message ?? {}) as { type?: unknown; env?: unknown };
  if (type !== 'build' || typeof env !== 'object' || env === null) return undefined;
  const vars = Object.entries(env).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  // An environment cannot hold a NUL (Node cuts the value there: "b-1\0x" would become "b-1")
  // nor a name with "=": such a handover is refused whole rather than taken changed.
  if (vars.some(([name, value]) => /[\0=]/.test(name) || name === '' || value.includes('\0')))
    return undefined;
  return Object.fromEntries(vars);
}

/** Compares in constant time (hashes first: the lengths may differ). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
