/**
 * Deterministic Kubernetes object names derived from a build: the same build id gives
 * the same object names on every render, so an agent that restarts finds what it created. Text
 * that is not already valid is cleaned and suffixed with a hash of the original, so two builds
 * whose ids clean to the same text (`a/b`, `a_b`) still get different names. Label values follow
 * the same rule in @sluice/labels (`labelValue`), which the agent shares.
 * @module
 */
import { nameHash } from '@sluice/labels';
import { isDnsLabel } from '../schema/kube-names.js';

const MAX = 63;

/**
 * `<prefix>-<buildId>` as a DNS label (lowercase, at most 63): object names and pod hostnames.
 * Ids that are valid once lowercased (UUIDs, ULIDs) appear as they are.
 */
export function buildObjectName(prefix: string, buildId: string): string {
  const plain = `${prefix}-${buildId.toLowerCase()}`;
  if (isDnsLabel(plain)) return plain;
  const cleaned = plain.replace(/[^a-z0-9-]+/g, '-').replace(/-{2,}/g, '-');
  const suffix = `-${nameHash(buildId)}`;
  return `${cleaned.slice(0, MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
}
