/**
 * Deterministic Kubernetes names and label values derived from a build: the same build id gives
 * the same object names on every render, so an agent that restarts finds what it created. Text
 * that is not already valid is cleaned and suffixed with a hash of the original, so two builds
 * whose ids clean to the same text (`a/b`, `a_b`) still get different names.
 * @module
 */
import { isDnsLabel, isLabelValue } from '../schema/kube-names.js';

const MAX = 63;

/** FNV-1a, 32 bits, as 8 hex digits: enough to tell cleaned names apart, and pure. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** `text` cut to `max`, then trimmed of the separators a name must not end with. */
function cut(text: string, max: number, edge: RegExp): string {
  return text.slice(0, max).replace(edge, '');
}

/**
 * `<prefix>-<buildId>` as a DNS label (lowercase, at most 63): object names and pod hostnames.
 * Ids that are valid once lowercased (UUIDs, ULIDs) appear as they are.
 */
export function buildObjectName(prefix: string, buildId: string): string {
  const plain = `${prefix}-${buildId.toLowerCase()}`;
  if (isDnsLabel(plain)) return plain;
  const cleaned = plain.replace(/[^a-z0-9-]+/g, '-').replace(/-{2,}/g, '-');
  const suffix = `-${hash(buildId)}`;
  return `${cut(cleaned, MAX - suffix.length, /-+$/)}${suffix}`;
}

/**
 * A label value for `text` (a branch, a trigger, an id): kept when valid, otherwise cleaned to
 * letters, digits, `-`, `_` and `.` and suffixed with a hash of `text`.
 */
export function labelValue(text: string): string {
  if (isLabelValue(text)) return text;
  const suffix = `-${hash(text)}`;
  const cleaned = cut(
    text.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[^A-Za-z0-9]+/, ''),
    MAX - suffix.length,
    /[^A-Za-z0-9]+$/,
  );
  // A value of only separators cleans to nothing: the hash alone still starts with a digit.
  return cleaned === '' ? hash(text) : `${cleaned}${suffix}`;
}
