/**
 * The shape of any object the API server returns, shared by `KubeResources` and its watches.
 * @module
 */
/** An object as the API server returns it: the fields every kind has, and the rest. */
export interface KubeResource {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
    deletionTimestamp?: string;
    finalizers?: string[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}
