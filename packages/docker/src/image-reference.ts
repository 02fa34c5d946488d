/**
 * Image references split the way Docker splits them: `[domain/]path[:tag][@digest]`, where the
 * first path component is a registry domain only when it has a `.` or `:` or is `localhost`.
 * @module
 */

export interface ImageReference {
  /** `registry.example.com:5000`, or undefined for Docker Hub's short names. */
  domain: string | undefined;
  /** The repository path without the domain, e.g. `team/app`. */
  path: string;
  tag: string | undefined;
  digest: string | undefined;
}

export function parseImageReference(reference: string): ImageReference {
  let rest = reference;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const slash = rest.indexOf('/');
  const first = slash === -1 ? '' : rest.slice(0, slash);
  const isDomain = first !== '' && (/[.:]/.test(first) || first === 'localhost');
  return {
    domain: isDomain ? first : undefined,
    path: isDomain ? rest.slice(slash + 1) : rest,
    tag,
    digest,
  };
}

/** `domain/path` (or just `path`) without tag or digest. */
export function repositoryOf(reference: ImageReference): string {
  return reference.domain === undefined ? reference.path : `${reference.domain}/${reference.path}`;
}
