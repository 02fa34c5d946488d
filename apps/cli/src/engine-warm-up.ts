/**
 * What a standby engine runs while it waits for its build (engine-handover.ts): the first use
 * of what every build's engine uses first — its configuration's schemas, the Docker client's
 * first request, the pipeline parser, undici when a proxy is set (the control plane's fetch
 * through it) — so that V8 has compiled that code and those modules are initialised when the
 * build comes, instead of the build paying for it cold (bench/local-start). Nothing here is
 * kept for the build, and a failure is no matter: the build then does the same for itself and
 * reports what went wrong.
 * @module
 */
import { DockerClient } from '@sluice/docker';
import { parsePipeline } from '@sluice/pipeline';
import { preloadControlPlaneFetch } from '@sluice/runner/control-plane-client';
import { dockerEndpoint, loadConfig, loadEngineConfig } from './config.js';

const PIPELINE = `version: "1.0"
steps:
  warm-up:
    image: sluice/busybox:1
    commands: ["true"]
`;

export async function warmUpEngine(): Promise<void> {
  await Promise.allSettled([
    Promise.resolve().then(() => loadEngineConfig()),
    Promise.resolve().then(() => parsePipeline(PIPELINE, { file: 'warm-up.yml' })),
    Promise.resolve().then(() =>
      DockerClient.create(dockerEndpoint(loadConfig(), undefined)).ping(),
    ),
    Promise.resolve().then(() => preloadControlPlaneFetch(loadConfig().proxy)),
  ]);
}
