/**
 * Kubernetes label values from any text (a build id, a runtime name, a branch): kept when
 * valid, otherwise cleaned and suffixed with a hash of the original, so two texts that clean to
 * the same value (`a/b`, `a_b`) still get different ones.
 * @module
 */

const MAX = 63;
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** FNV-1a, 32 bits, as 8 hex digits: enough to tell cleaned names apart, and pure. */
export function nameHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** Empty, or at most 63 letters, digits, `-`, `_` and `.`, starting and ending alphanumeric. */
export function isLabelValue(text: string): boolean {
  return text === '' || (text.length <= MAX && LABEL_VALUE.test(text));
}

/**
 * A label value for `text`: kept when valid, otherwise cleaned to letters, digits, `-`, `_`
 * and `.` and suffixed with a hash of `text`.
 */
export function labelValue(text: string): string {
  if (isLabelValue(text)) return text;
  const suffix = `-${nameHash(text)}`;
  const cleaned = text
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, MAX - suffix.length)
    .replace(/[^A-Za-z0-9]+$/, '');
  // A value of only separators cleans to nothing: the hash alone still starts with a digit.
  return cleaned === '' ? nameHash(text) : `${cleaned}${suffix}`;
}
