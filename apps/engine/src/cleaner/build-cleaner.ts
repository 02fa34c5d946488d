/**
 * The cleaner as one build sees it: started beside the steps once the build's resources exist
 * (its helper image, the sandbox's busybox, is then on the daemon), finished after the last step
 * and the build's own clean-up. The engine's helper images (the sandbox's and git-clone's) are
 * kept through every clean, so no build has to pull them again; the build's workspace volume is
 * left alone while the build runs. Nothing here fails the build: a cleaner that cannot work says
 * so in one system line and in the engine's log.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { DockerClient } from '@sluice/docker';
import type { Logger } from '@sluice/log';
import type { BuildEventSink } from '../base/build-events.js';
import type { CleanerSettings } from './cleaner-settings.js';
import { DindCleaner } from './dind-cleaner.js';

/** What the cleaner takes from the build (the step runtime has all of it). */
export interface BuildCleanerContext {
  docker: DockerClient;
  buildId: string;
  /** The sandbox's image: busybox, the cleaner's helper image too. */
  sandboxImage: string;
  gitImage: string;
  /** The build's workspace volume. */
  volumeName: string;
  /** The labels of the build's containers. */
  labels: Record<string, string>;
  emit: BuildEventSink;
  clock: () => number;
  log: Logger;
}

export interface BuildCleaner {
  /** Waits for the start, stops the background passes, runs the end-of-build clean. */
  finish(): Promise<void>;
}

/** Starts the cleaner without waiting for it; undefined `settings`: the daemon is not cleaned. */
export function startBuildCleaner(
  runtime: BuildCleanerContext,
  settings: CleanerSettings | undefined,
): BuildCleaner | undefined {
  if (settings === undefined) return undefined;
  const say = (line: string) =>
    runtime.emit({ type: 'step-log', step: '', stream: 'system', line, at: runtime.clock() });
  const failed = (when: string) => (err: unknown) => {
    const error = describeError(err);
    runtime.log.warn(`the cleaner failed ${when}`, { error });
    say(`Cleaner: failed ${when}, nothing more is cleaned in this build: ${error}`);
    return undefined;
  };
  const started = DindCleaner.start({
    docker: runtime.docker,
    settings,
    buildId: runtime.buildId,
    helperImage: runtime.sandboxImage,
    protect: { images: [runtime.sandboxImage, runtime.gitImage], volumes: [runtime.volumeName] },
    buildLabels: runtime.labels,
    say,
    log: runtime.log,
    clock: runtime.clock,
  }).catch(failed('to start'));
  return {
    async finish() {
      const cleaner = await started;
      await cleaner?.finish().catch(failed('at the end of the build'));
    },
  };
}
