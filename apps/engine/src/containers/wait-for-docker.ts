/**
 * An engine in a pod starts beside its dind pod, whose daemon needs a few seconds (scheduling,
 * the volume, dockerd's start) before it answers. `waitForDocker` pings until it answers or the
 * time is up, reporting each wait; errors that waiting cannot fix (a certificate the build's CA
 * did not sign, a refused client certificate) end the wait at once, and so does `signal`.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { DockerClient } from '@sluice/docker';
import { abortableSleep } from '../base/durations.js';

/** A ping is one small request: cheap enough to repeat twice a second while dind starts. */
const MAX_PAUSE_MS = 500;

export interface WaitForDockerOptions {
  timeoutMs: number;
  /** First pause between pings; doubles up to 500 ms (each pause is time the build waits). */
  intervalMs?: number;
  /** Called after each failed ping with the error and the milliseconds waited so far. */
  onWait?(error: unknown, waitedMs: number): void;
  /** Ends the wait at once (a SIGTERM, say); the last ping's error is thrown. */
  signal?: AbortSignal;
}

/** Resolves with the daemon's version; rejects with the last error when the time is up. */
export async function waitForDocker(
  docker: DockerClient,
  options: WaitForDockerOptions,
): Promise<{ version: string; apiVersion: string }> {
  const started = Date.now();
  let pause = options.intervalMs ?? 250;
  for (;;) {
    try {
      return await docker.ping();
    } catch (err) {
      const waited = Date.now() - started;
      const retriable = !isSluiceError(err) || err.category === 'unavailable';
      if (!retriable || waited + pause > options.timeoutMs || options.signal?.aborted) throw err;
      options.onWait?.(err, waited);
      // An abort ends the pause early, and the wait with it.
      if (!(await abortableSleep(pause, options.signal))) throw err;
      pause = Math.min(MAX_PAUSE_MS, pause * 2);
    }
  }
}
