/**
 * One object of a runtime's install, as `renderRuntimeInstall` makes it and `sluice runner init`
 * applies it.
 * @module
 */
/** A manifest of the install; a Namespace has no namespace of its own. */
export type InstallObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
  };
} & Record<string, unknown>;
