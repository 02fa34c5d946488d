/**
 * What a merged spec needs before a build can run on it, which a partial spec (one that relies
 * on its parents) need not have: both scheduler types, the images and namespace of a
 * Kubernetes runtime, and a volume behind every user volume mount.
 * @module
 */
import { RUNTIME_SPEC_ISSUE_CODES } from './runtime-spec-issue.js';
import type { RuntimeSpecIssue, RuntimeSpecPath } from './runtime-spec-issue.js';
import type { DockerDaemonScheduler, RuntimeSpec } from './schema/runtime-spec-schema.js';

const PARENTS = '"system/default/k8s" or "system/default/local"';

export function checkResolved(spec: RuntimeSpec): RuntimeSpecIssue[] {
  const issues: RuntimeSpecIssue[] = [];
  const name = spec.metadata.name;
  const missing = (path: RuntimeSpecPath, what: string) => {
    const field = path.join('.');
    const message = `Runtime environment "${name}" has no ${what}; set "${field}" or extend ${PARENTS}`;
    issues.push({ path, code: RUNTIME_SPEC_ISSUE_CODES.incomplete, message });
  };
  const engine = spec.runtimeScheduler;
  const dind = spec.dockerDaemonScheduler;
  if (engine?.type === undefined) missing(['runtimeScheduler', 'type'], 'engine type');
  if (dind?.type === undefined) missing(['dockerDaemonScheduler', 'type'], 'Docker daemon type');
  if (engine?.type === 'KubernetesPod') {
    if (engine.image === undefined) missing(['runtimeScheduler', 'image'], 'engine image');
    if (engine.cluster?.namespace === undefined) {
      missing(['runtimeScheduler', 'cluster', 'namespace'], 'namespace');
    }
  }
  if (dind?.type !== undefined && dind.type !== 'LocalDocker' && dind.dindImage === undefined) {
    missing(['dockerDaemonScheduler', 'dindImage'], 'dind image');
  }
  if (dind !== undefined) issues.push(...checkUserVolumes(dind));
  return issues;
}

/** Each user volume mount names a volume (its `name`, or its key) that `userVolumes` has. */
function checkUserVolumes(dind: DockerDaemonScheduler): RuntimeSpecIssue[] {
  const volumes = new Set(
    Object.entries(dind.userVolumes ?? {}).map(([key, volume]) => volume.name ?? key),
  );
  return Object.entries(dind.userVolumeMounts ?? {})
    .filter(([key, mount]) => !volumes.has(mount.name ?? key))
    .map(([key, mount]) => ({
      path: ['dockerDaemonScheduler', 'userVolumeMounts', key],
      code: RUNTIME_SPEC_ISSUE_CODES.incomplete,
      message: `User volume mount "${key}" names volume "${mount.name ?? key}", which "userVolumes" does not have`,
    }));
}
