/**
 * The `push` step: the candidate image tagged `<registry domain>/<image_name>:<tag>` for each
 * tag and pushed with the registry's credentials (or the step's own), which are masked. Also
 * used by build steps that push to a registry they name or to the default one.
 * @module
 */
import { parseImageReference } from '@sluice/docker';
import type { PushStep } from '@sluice/pipeline';
import type { RegistryAuth } from '@sluice/docker';
import type { StepOutcome, StepRuntime } from '../base/step-runtime.js';
import type { RegistrySetting } from '../base/registry-settings.js';
import { emitLine, outcomeOfError } from '../containers/container-run.js';

export async function runPushStep(step: PushStep, runtime: StepRuntime): Promise<StepOutcome> {
  const registry = findRegistry(step.registry, runtime.registries);
  if (typeof registry === 'string') return { result: 'failure', reason: registry };
  const repository = step.imageName ?? parseImageReference(step.candidate).path;
  const tags = step.tags.length > 0 ? step.tags : ['latest'];
  try {
    const pushed = await pushImage(step.candidate, { repository, tags, registry }, step, runtime);
    runtime.scope.setStep(step.name, {
      members: {
        registry: registry.domain,
        imageId: pushed.imageId,
        imageRepoDigest: pushed.repoDigest ?? '',
      },
    });
    return { result: 'success' };
  } catch (err) {
    return outcomeOfError(err, runtime, 'The push was stopped because the build was cancelled');
  }
}

/**
 * The registry named, or the default one; a string says why there is none. `registry:` names
 * a setting by its name (or, for convenience, by its domain).
 */
export function findRegistry(
  name: string | undefined,
  registries: RegistrySetting[],
): RegistrySetting | string {
  if (name !== undefined) {
    const found =
      registries.find((r) => r.name === name) ?? registries.find((r) => r.domain === name);
    if (found !== undefined) return found;
    const known = registries.map((r) => r.name).join(', ') || 'none';
    return `No registry named "${name}" (configured: ${known}); add it with sluice run --registry or in the account's registry settings (a build is given only the registries its pipeline names: a name a step makes at run time names none)`;
  }
  const fallback = registries.find((r) => r.default === true);
  if (fallback !== undefined) return fallback;
  return 'No registry: name one with registry: or configure a default (sluice run --registry …)';
}

export interface PushTarget {
  /** Repository path inside the registry, e.g. `team/app`. */
  repository: string;
  tags: string[];
  registry: RegistrySetting;
}

export interface PushResult {
  imageId: string;
  /** `domain/repository@sha256:…` of the first tag pushed. */
  repoDigest: string | undefined;
}

/** Tags `candidate` for each tag, pushes, and removes the references it added. */
export async function pushImage(
  candidate: string,
  target: PushTarget,
  step: { name: string; credentials?: { username: string; password: string } },
  runtime: StepRuntime,
): Promise<PushResult> {
  const { registry } = target;
  const auth = authFor(registry, step.credentials);
  if (auth !== undefined) runtime.masker.add(auth.password);
  const image = await runtime.docker.inspectImage(candidate);
  let repoDigest: string | undefined;
  for (const tag of target.tags) {
    const reference = `${registry.domain}/${target.repository}:${tag}`;
    const added = !(await runtime.docker.imageExists(reference));
    await runtime.docker.tagImage(candidate, reference);
    try {
      emitLine(runtime, step.name, 'system', `Pushing ${reference}`);
      const pushed = await runtime.docker.pushImage(
        reference,
        auth,
        (line) => emitLine(runtime, step.name, 'stdout', line),
        { signal: runtime.signal },
      );
      if (pushed.digest !== undefined)
        repoDigest ??= `${registry.domain}/${target.repository}@${pushed.digest}`;
    } finally {
      if (added) await runtime.docker.removeImage(reference);
    }
  }
  return { imageId: image.id, repoDigest };
}

function authFor(
  registry: RegistrySetting,
  credentials: { username: string; password: string } | undefined,
): RegistryAuth | undefined {
  const username = credentials?.username ?? registry.username;
  const password = credentials?.password ?? registry.password;
  if (username === undefined || password === undefined) return undefined;
  return { username, password, serveraddress: registry.domain };
}
