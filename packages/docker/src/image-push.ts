/**
 * `docker push` through the Engine API, with the registry credentials in the request (never in
 * a config file on the daemon's host). Progress comes back as lines without the progress-bar
 * noise; a refused login is an InputError that names the registry.
 * @module
 */
import type Docker from 'dockerode';
import { InputError } from '@sluice/errors';
import { followProgress } from './json-progress.js';
import { parseImageReference } from './image-reference.js';

export interface RegistryAuth {
  username: string;
  password: string;
  /** The registry's `host[:port]`. */
  serveraddress: string;
}

export interface PushedImage {
  /** `sha256:…` of the manifest the registry stored, when the daemon reported it. */
  digest: string | undefined;
}

export const REGISTRY_DENIED = 'SLUICE_DOCKER_REGISTRY_DENIED';
export const PUSH_FAILED = 'SLUICE_DOCKER_PUSH_FAILED';

const DENIED = /\b(unauthorized|denied|authentication required|401|403|forbidden)\b/i;

export async function runImagePush(
  docker: Docker,
  reference: string,
  auth: RegistryAuth | undefined,
  onLine: (line: string) => void,
  signal?: AbortSignal,
): Promise<PushedImage> {
  const stream = await docker
    .getImage(reference)
    // The daemon insists on the header even for a registry without login: `{}` then.
    .push({ abortSignal: signal }, undefined, auth ?? {});
  let digest: string | undefined;
  const { error } = await followProgress(stream, (message) => {
    if (message.aux?.Digest !== undefined) digest = message.aux.Digest;
    // Byte counters are noise in a log; the layer's Preparing/Pushed/exists lines are kept.
    if (message.status === undefined || message.progressDetail?.current !== undefined) return;
    onLine(message.id === undefined ? message.status : `${message.id}: ${message.status}`);
  });
  if (error !== undefined) throw pushFailure(reference, error);
  return { digest };
}

export function pushFailure(reference: string, reason: string, cause?: unknown): InputError {
  const registry = parseImageReference(reference).domain ?? 'docker.io';
  if (DENIED.test(reason)) {
    return new InputError(
      REGISTRY_DENIED,
      `Registry ${registry} refused the push of "${reference}" (${reason.trim()}): check the credentials for ${registry}`,
      {
        cause,
        details: { registry, image: reference },
        hint: `Check the credentials for ${registry} (the registry setting's or the step's credentials) and that the user may push to this repository`,
      },
    );
  }
  return new InputError(PUSH_FAILED, `Pushing "${reference}" failed: ${reason.trim()}`, {
    cause,
    details: { registry, image: reference },
    hint: `Check that the registry ${registry} is reachable from the Docker engine and accepts this image`,
  });
}
