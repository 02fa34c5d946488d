/**
 * Where a delegated volume may be mounted: a cloud disk is zonal, and its PersistentVolume says
 * so in a required node affinity (`topology.kubernetes.io/zone`, or the driver's own key such
 * as `topology.ebs.csi.aws.com/zone`). Pure: the provisioner gives a released volume only to a
 * claim whose pod's node satisfies that affinity, exactly as the scheduler will check it.
 * @module
 */

/** One `nodeSelectorTerms` entry of a volume's required node affinity. */
export interface NodeSelectorTerm {
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
  matchFields?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** The zone label Kubernetes puts on nodes (and on zonal volumes); the test cluster's zones. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';
/** The label of clusters before 1.17, still set by some. */
const LEGACY_ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';

/**
 * Whether a node of these labels satisfies the terms (any term; within a term every
 * expression), as the scheduler decides. A term with `matchFields` only (a node by name) is not
 * one a zonal disk writes and matches nothing here, so such a volume is never moved.
 */
export function nodeMatches(
  terms: readonly NodeSelectorTerm[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return terms.some((term) => {
    const expressions = term.matchExpressions ?? [];
    if (expressions.length === 0 || (term.matchFields ?? []).length > 0) return false;
    return expressions.every(({ key, operator, values = [] }) => {
      const value = labels[key];
      switch (operator) {
        case 'In':
          return value !== undefined && values.includes(value);
        case 'NotIn':
          return value === undefined || !values.includes(value);
        case 'Exists':
          return value !== undefined;
        case 'DoesNotExist':
          return value === undefined;
        case 'Gt':
        case 'Lt': {
          const have = Number(value);
          const bound = Number(values[0]);
          if (value === undefined || !Number.isInteger(have) || !Number.isInteger(bound))
            return false;
          return operator === 'Gt' ? have > bound : have < bound;
        }
        default:
          return false;
      }
    });
  });
}

/** A node's zone, from its labels; undefined when it has none. */
export function nodeZone(labels: Readonly<Record<string, string>>): string | undefined {
  return labels[ZONE_LABEL] ?? labels[LEGACY_ZONE_LABEL];
}

/**
 * A volume's zone, for people and for its `topology.kubernetes.io/zone` label: its own label,
 * else the one value of a `…/zone` key its affinity requires (every CSI driver's topology key
 * for zones ends so). Undefined for a volume any node may mount.
 */
export function volumeZone(
  labels: Readonly<Record<string, string>>,
  terms: readonly NodeSelectorTerm[] | undefined,
): string | undefined {
  const labelled = nodeZone(labels);
  if (labelled !== undefined) return labelled;
  const zones = new Set<string>();
  for (const term of terms ?? [])
    for (const e of term.matchExpressions ?? [])
      if (e.operator === 'In' && /(^|\/)zone$/.test(e.key))
        for (const v of e.values ?? []) zones.add(v);
  return zones.size === 1 ? [...zones][0] : undefined;
}

/**
 * The required node affinity a delegated volume gets when its driver wrote none (a provisioner
 * without topology, as the test cluster's host-path one), so the pods that mount it are placed
 * in the zone it was made for; undefined when the zone is unknown or the volume has its own.
 */
export function zoneAffinity(
  zone: string | undefined,
): { required: { nodeSelectorTerms: NodeSelectorTerm[] } } | undefined {
  if (zone === undefined) return undefined;
  return {
    required: {
      nodeSelectorTerms: [
        { matchExpressions: [{ key: ZONE_LABEL, operator: 'In', values: [zone] }] },
      ],
    },
  };
}
