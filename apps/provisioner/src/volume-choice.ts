/**
 * Which volume a claim gets: pure, so every rule of the reuse policy is tested without a cluster.
 *
 * A released volume of this provisioner may serve a claim when its labels equal the claim's on
 * every key of the claim's `reuseVolumeSelector` (a key absent on both counts as equal), it is
 * at least as large as the claim asks, it is not being retired, and — once the scheduler has
 * picked a node for the claim's pod — it lives on that node. Among those, volumes that also
 * match the keys of `reuseVolumeSortOrder` come first, in that order of keys (a volume matching
 * the first key beats one matching only the second), then the most recently used, then the
 * name, so the choice is the same every time. With none, a new volume is made. A claim may name
 * the volume it prefers (the warm pool names the one a build just released): that volume, if it
 * may serve the claim, is taken before any other, and waited for while its last claim lets go.
 *
 * A delegated volume (a cloud disk the cluster's own StorageClass made) is on no node but in a
 * zone: it may serve a claim only once the claim's node is known and satisfies the volume's
 * required node affinity, so a disk is never given to a pod in another zone.
 * @module
 */
import { nodeMatches } from './zones.js';
import type { NodeSelectorTerm } from './zones.js';

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
  /**
   * That node's labels, when the volumes are delegated (zonal disks): a volume is then for the
   * claim only if the node satisfies the volume's node affinity (`placement`).
   */
  nodeLabels?: Readonly<Record<string, string>>;
  /** That node's zone, for the words of a miss. */
  zone?: string;
  /** The volume the claim would rather have (`sluice.io/prefer-volume`). */
  prefer?: string;
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
  /**
   * The required node affinity of a volume on no one node (a delegated, zonal disk): the nodes
   * whose pods may mount it. Absent: any node.
   */
  placement?: readonly NodeSelectorTerm[];
  /** Its zone, as `volumeZone` reads it. */
  zone?: string;
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
  const preferred = choosePreferred(claim, volumes);
  if (preferred !== undefined) return preferred;
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
        placedFor(claim, v),
    )
    .sort((a, b) => b.lastUsedMs - a.lastUsedMs || a.name.localeCompare(b.name))[0];
  if (ending === undefined) return choice;
  return {
    kind: 'wait',
    volume: ending,
    reason: `volume ${ending.name} is being released by claim ${ending.claim ?? '(unknown)'}, whose build is over`,
  };
}

/**
 * The volume the claim names, when it could serve the claim: taken when free, else waited for
 * while the claim of the build that had it goes (the warm pool names it as the build ends).
 * Undefined: the usual choice.
 */
function choosePreferred(
  claim: ClaimFacts,
  volumes: readonly VolumeFacts[],
): VolumeChoice | undefined {
  const v = volumes.find((volume) => volume.name === claim.prefer);
  if (v === undefined || v.retiring || v.spare === true) return undefined;
  if (!claim.selector.every((key) => sameLabel(claim, v, key))) return undefined;
  if (v.capacityBytes < claim.requestBytes || !placedFor(claim, v)) return undefined;
  // Held by another claim now: the usual choice. Let go by its build: waited for.
  if (v.inUse && v.releasing !== true) return undefined;
  if (v.inUse)
    return {
      kind: 'wait',
      volume: v,
      reason: `volume ${v.name}, which the claim prefers, is being released by claim ${v.claim ?? '(unknown)'}`,
    };
  const matchedSortKeys = claim.sortOrder.filter((key) => sameLabel(claim, v, key));
  return { kind: 'reuse', volume: v, matchedSortKeys };
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
  const here = bigEnough.filter((v) => placedFor(claim, v));
  if (here.length === 0) {
    const where =
      claim.nodeLabels === undefined
        ? `on node ${claim.node}`
        : `in zone ${claim.zone ?? '(none)'} of node ${claim.node}`;
    return { kind: 'new', reason: `no matching volume ${where}` };
  }
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

/**
 * Whether the claim's pod may mount the volume: a local volume on the claim's node, a delegated
 * one whose node affinity the node satisfies; before the scheduler picked a node, any.
 */
function placedFor(claim: ClaimFacts, v: VolumeFacts): boolean {
  if (claim.node === undefined) return true;
  if (v.node !== undefined) return v.node === claim.node;
  if (v.placement === undefined || v.placement.length === 0) return true;
  return claim.nodeLabels !== undefined && nodeMatches(v.placement, claim.nodeLabels);
}

function sameLabel(claim: ClaimFacts, volume: VolumeFacts, key: string): boolean {
  return (claim.labels[key] ?? '') === (volume.labels[key] ?? '');
}

/** Lexicographic over the sort keys: a match on an earlier key outweighs any later ones. */
function compareScores(a: readonly boolean[], b: readonly boolean[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] ? 1 : -1;
  return 0;
}
