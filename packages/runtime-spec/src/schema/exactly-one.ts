/**
 * The "exactly one of these fields" rule of Kubernetes unions (a volume's source, an env var's
 * `valueFrom`), as a zod check. A map with a misspelt field is left to the unknown-field issue:
 * `secrt:` is one typo, not also a volume without a source.
 * @module
 */
import type { z } from 'zod';

export function exactlyOne(verb: string, names: readonly string[]) {
  return (payload: z.core.ParsePayload<object>): void => {
    const ownKeyIssue = payload.issues.some(
      (issue) => issue.code === 'unrecognized_keys' && (issue.path?.length ?? 0) === 0,
    );
    if (ownKeyIssue) return;
    const set = names.filter((name) => Object.hasOwn(payload.value, name));
    if (set.length === 1) return;
    payload.issues.push({
      code: 'custom',
      input: payload.value,
      message:
        set.length === 0
          ? `must ${verb} one source: ${names.join(', ')}`
          : `must ${verb} one source, got ${set.map((k) => `"${k}"`).join(' and ')}`,
    });
  };
}
