/**
 * The agent's side of handing a build to a pool pod's engine: one POST of the build's variables
 * to the pod's handover port, with the pod's own key (from its Secret) as a bearer token, so that
 * nothing else on the pod network can give a waiting engine a build. The engine answers 204 and
 * runs the build; anything else is a failure the caller turns into a retriable task.
 * @module
 */
import { request } from 'node:http';

/** A pod that does not answer in this time is given up on: the build is retried elsewhere. */
const HANDOVER_TIMEOUT_MS = 10_000;

export interface HandoverTarget {
  address: string;
  port: number;
  key: string;
}

/** @throws Error naming the pod's answer (or its silence) when the engine did not take it. */
export function postHandover(
  target: HandoverTarget,
  env: Record<string, string>,
  signal?: AbortSignal,
): Promise<void> {
  const body = JSON.stringify({ type: 'build', env });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.address,
        port: target.port,
        method: 'POST',
        path: '/handover',
        headers: {
          authorization: `Bearer ${target.key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: HANDOVER_TIMEOUT_MS,
        ...(signal === undefined ? {} : { signal }),
      },
      (res) => {
        res.resume();
        if (res.statusCode === 204) resolve();
        else
          reject(
            new Error(
              `The pool pod's engine at ${target.address}:${target.port} answered HTTP ${String(res.statusCode)}`,
            ),
          );
      },
    );
    req.on('timeout', () =>
      req.destroy(
        new Error(
          `The pool pod's engine at ${target.address}:${target.port} did not answer in ${HANDOVER_TIMEOUT_MS / 1000} s`,
        ),
      ),
    );
    req.on('error', reject);
    req.end(body);
  });
}
