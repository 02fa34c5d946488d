/**
 * Deterministic Docker object names and labels for a build, so anything left behind can be
 * found by label and removed.
 * @module
 */

/** The labels of a build's containers and network (@sluice/labels: the agent reads them too). */
export { DOCKER_LABELS as LABELS } from '@sluice/labels';

/** Docker names allow [a-zA-Z0-9][a-zA-Z0-9_.-]*. */
export function dockerSafe(text: string): string {
  const cleaned = text.replace(/[^a-zA-Z0-9_.-]+/g, '-').replace(/^[^a-zA-Z0-9]+/, '');
  return cleaned === '' ? 'x' : cleaned.slice(0, 100);
}

export function volumeNameFor(volumeKey: string): string {
  return `sluice-volume-${dockerSafe(volumeKey)}`;
}

export function networkNameFor(buildId: string): string {
  return `sluice-build-${dockerSafe(buildId)}`;
}

export function containerNameFor(buildId: string, stepName: string, attempt: number): string {
  return `sluice-${dockerSafe(buildId)}-${dockerSafe(stepName)}-${attempt}`;
}
