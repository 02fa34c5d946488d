/**
 * Which volume a claim gets: pure, so every rule of the reuse policy is tested without a cluster.
 *
 * A released volume of this provisioner may serve a claim when its labels equal the claim's on
 * every key of the claim's `reuseVolumeSelector` (a key absent on both counts as equal), it is
 * at least as large as the claim asks, it is not being retired, and — once the scheduler has
 * picked a node for the claim's pod — it lives on that node. Among those, volumes that also
 * match the keys of `reuseVolumeSortOrder` come first, in that order of keys (a volume matching
 * the first key beats one matching only the second), then the most recently used, then the
 * name, so the choice is the same every time. With none, a new volume is made.
 * @module
 */

export interface ClaimFacts {
  namespace: string;
  name: string;
  uid: string;
  labels: Readonly<Record<string, string>>;
  /** Label keys whose values must all match. */
  selector: readonly string[];
  /** Label keys a volume preferably matches too, most important first. */
  sortOrder: readonly string[];
  /** Requested size in bytes. */
  requestBytes: number;
  /** The node the scheduler picked for the claim's pod, once it has. */
  node?: string;
}

export interface VolumeFacts {
  name: string;
  labels: Readonly<Record<string, string>>;
  capacityBytes: number;
  /** When its last claim let it go (ms since the epoch); 0 when never used. */
  lastUsedMs: number;
  mountCount: number;
  /** Bound or promised to a claim that still exists. */
  inUse: boolean;
  /** In use by a claim being deleted: its build is over, and it is free once its pod stops. */
  releasing?: boolean;
  /** The name of the claim it is bound or promised to, in use or last. */
  claim?: string;
  /** Empty, kept by the node agent for new volumes: never a cache to reuse. */
  spare?: boolean;
  /** Marked for deletion (retention, full disk). */
  retiring: boolean;
  /** The node holding a local volume. */
  node?: string;
}

export type VolumeChoice =
  | { kind: 'reuse'; volume: VolumeFacts; matchedSortKeys: string[] }
  | { kind: 'new'; reason: string }
  /** No free volume serves the claim, but one that would is being released: wait for it. */
  | { kind: 'wait'; volume: VolumeFacts; reason: string };

/**
 * The choice for a claim. Back to back, a build's claim comes while the previous build's volume
 * is still being released (its dind pod stopping): rather than a cold volume, the claim waits
 * for that one (`wait`; the provisioner bounds how long).
 */
export function chooseVolume(claim: ClaimFacts, volumes: readonly VolumeFacts[]): VolumeChoice {
  const choice = chooseFree(claim, volumes);
  if (choice.kind !== 'new') return choice;
  const ending = volumes
    .filter(
      (v) =>
        v.releasing === true &&
        !v.retiring &&
        v.spare !== true &&
        claim.selector.every((key) => sameLabel(claim, v, key)) &&
        v.capacityBytes >= claim.requestBytes &&
        (claim.node === undefined || v.node === claim.node),
    )
    .sort((a, b) => b.lastUsedMs - a.lastUsedMs || a.name.localeCompare(b.name))[0];
  if (ending === undefined) return choice;
  return {
    kind: 'wait',
    volume: ending,
    reason: `volume ${ending.name} is being released by claim ${ending.claim ?? '(unknown)'}, whose build is over`,
  };
}

function chooseFree(claim: ClaimFacts, volumes: readonly VolumeFacts[]): VolumeChoice {
  // A miss says why in words: the cache a user expected is in use, being retired, or was never
  // made for these labels.
  const matching = volumes.filter(
    (v) => v.spare !== true && claim.selector.every((key) => sameLabel(claim, v, key)),
  );
  const labels = claim.selector.map((key) => `${key}=${claim.labels[key] ?? ''}`).join(',');
  if (matching.length === 0)
    return { kind: 'new', reason: `no volume has been made for ${labels} yet` };
  const notRetiring = matching.filter((v) => !v.retiring);
  if (notRetiring.length === 0)
    return { kind: 'new', reason: `the volumes for ${labels} are being retired` };
  const sameKeys = notRetiring.filter((v) => !v.inUse);
  if (sameKeys.length === 0) {
    const claims = notRetiring.map((v) => v.claim ?? v.name).sort();
    return {
      kind: 'new',
      reason: `every volume for ${labels} is in use by another build (claim ${claims.join(', ')})`,
    };
  }
  const bigEnough = sameKeys.filter((v) => v.capacityBytes >= claim.requestBytes);
  if (bigEnough.length === 0) return { kind: 'new', reason: 'the matching volumes are too small' };
  const node = claim.node;
  const here = node === undefined ? bigEnough : bigEnough.filter((v) => v.node === node);
  if (here.length === 0) return { kind: 'new', reason: `no matching volume on node ${node}` };
  const ranked = here
    .map((volume) => ({
      volume,
      score: claim.sortOrder.map((key) => sameLabel(claim, volume, key)),
    }))
    .sort(
      (a, b) =>
        compareScores(b.score, a.score) ||
        b.volume.lastUsedMs - a.volume.lastUsedMs ||
        a.volume.name.localeCompare(b.volume.name),
    );
  const best = ranked[0]!;
  return {
    kind: 'reuse',
    volume: best.volume,
    matchedSortKeys: claim.sortOrder.filter((_, i) => best.score[i]),
  };
}

function sameLabel(claim: ClaimFacts, volume: VolumeFacts, key: string): boolean {
  return (claim.labels[key] ?? '') === (volume.labels[key] ?? '');
}

/** Lexicographic over the sort keys: a match on an earlier key outweighs any later ones. */
function compareScores(a: readonly boolean[], b: readonly boolean[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] ? 1 : -1;
  return 0;
}
