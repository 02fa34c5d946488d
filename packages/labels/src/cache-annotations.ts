/** PVC annotations that hand the reuse rules to the volume provisioner. */
export const REUSE_ANNOTATIONS = {
  selector: 'sluice.io/reuse-volume-selector',
  sortOrder: 'sluice.io/reuse-volume-sort-order',
  /**
   * A volume the claim would rather have than any other that matches: the warm pool names the
   * volume a build just released, so its next pod is on that build's cache.
   */
  preferVolume: 'sluice.io/prefer-volume',
} as const;

/**
 * PVC annotations in which the volume provisioner records what the claim got: the agent reads
 * them into the build's cache record (the API, `describe build`). Absent: the claim's volume
 * came from another provisioner, or was not given yet.
 */
export const CACHE_ANNOTATIONS = {
  /** `hit` (a warm volume reused) or `miss` (a new, empty one). */
  outcome: 'sluice.io/volume-cache',
  /** Why: the reuse keys that matched, or why no released volume could serve. */
  reason: 'sluice.io/volume-cache-reason',
  volume: 'sluice.io/volume-name',
  /** When the volume was first made (RFC 3339). */
  created: 'sluice.io/volume-created',
  /** When its previous claim let it go; absent for a new volume. */
  previousUse: 'sluice.io/volume-previous-use',
  /** How many claims have had it, this one included. */
  mounts: 'sluice.io/volume-mounts',
  /** Bytes its directory held when the claim got it, as the volume agent last measured. */
  usedBytes: 'sluice.io/volume-used-bytes',
} as const;
