/**
 * The delegated backend of the provisioner (`volumeBackend: delegate`, `delegate-volumes.ts`):
 * asks the delegate StorageClass for a new volume through a helper claim, adopts what its
 * driver made for the claim still waiting for it, and reads the zone of a claim's node.
 * @module
 */
import type { KubeResource, KubeResources } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import { CACHE_ANNOTATIONS } from '@sluice/runtime-spec';
import { adoptPatch, DELEGATE_FOR_LABEL, helperClaimObject } from './delegate-volumes.js';
import type { ClaimFacts } from './volume-choice.js';
import type { CacheDecision } from './volume-objects.js';
import { claimFacts, claimRefOf, PROVISIONER_LABEL, uidOf } from './volume-objects.js';
import { nodeZone, ZONE_LABEL } from './zones.js';

export interface DelegateBackendOptions {
  resources: KubeResources;
  log: Logger;
  namespace: string;
  provisionerName: string;
  provisionerLabel: string;
  storageClass: string;
  delegateStorageClass: string;
  clock: () => number;
  /** The provisioner's guarded write of a volume: undefined when it changed since read. */
  write: (pv: KubeResource, patch: Record<string, unknown>) => Promise<KubeResource | undefined>;
  /** Records on the claim what it got. */
  record: (claim: KubeResource, decision: CacheDecision) => Promise<void>;
}

/** Node labels read once per pass, by node name. */
export type NodeLabelCache = Map<string, Promise<Record<string, string>>>;

export class DelegateBackend {
  readonly #o: DelegateBackendOptions;

  constructor(options: DelegateBackendOptions) {
    this.#o = options;
  }
  /**
   * The helper claims of the delegated backend: a volume the driver made for a claim still
   * waiting is adopted for it (one guarded write), and a helper whose claim is gone or served
   * goes (an unadopted volume with it: the delegate class deletes it).
   */
  async settle(
    claims: KubeResource[],
    promised: Set<string>,
    pending: Set<string>,
    nodes: NodeLabelCache,
    created: string[],
  ): Promise<void> {
    const { resources, namespace, log } = this.#o;
    const helpers = claims.filter(
      (c) =>
        c.metadata.labels?.[PROVISIONER_LABEL] === this.#o.provisionerLabel &&
        c.metadata.labels[DELEGATE_FOR_LABEL] !== undefined &&
        c.metadata.deletionTimestamp === undefined,
    );
    for (const helper of helpers) {
      const forUid = helper.metadata.labels?.[DELEGATE_FOR_LABEL] ?? '';
      const claim = claims.find((c) => uidOf(c) === forUid);
      const claimSpec = claim?.['spec'] as { volumeName?: string } | undefined;
      const ref = { kind: 'PersistentVolumeClaim', namespace, name: helper.metadata.name };
      if (
        claim === undefined ||
        claim.metadata.deletionTimestamp !== undefined ||
        claimSpec?.volumeName ||
        promised.has(forUid)
      ) {
        await resources.delete(ref);
        continue;
      }
      pending.add(forUid);
      const volumeName = (helper['spec'] as { volumeName?: string } | undefined)?.volumeName;
      // Not bound yet: the driver is making the disk; the helper's change wakes the next pass.
      if (!volumeName) continue;
      const pv = await resources.read({ kind: 'PersistentVolume', name: volumeName });
      if (pv === undefined || claimRefOf(pv)?.uid !== uidOf(helper)) continue;
      const facts = await this.factsOf(claim, nodes);
      const written = await this.#o.write(
        pv,
        adoptPatch(pv, claim, facts, {
          provisionerLabel: this.#o.provisionerLabel,
          provisionerName: this.#o.provisionerName,
          storageClass: this.#o.storageClass,
          delegateClass: this.#o.delegateStorageClass,
          ...(facts.zone === undefined ? {} : { zone: facts.zone }),
          now: this.#o.clock(),
        }),
      );
      // Changed since it was read: the next pass looks again.
      if (written === undefined) continue;
      promised.add(forUid);
      log.info('volume created', {
        claim: `${facts.namespace}/${facts.name}`,
        volume: pv.metadata.name,
        zone: written.metadata.labels?.[ZONE_LABEL] ?? 'none',
        delegate: this.#o.delegateStorageClass,
      });
      const why = helper.metadata.annotations?.[CACHE_ANNOTATIONS.reason] ?? 'no warm volume';
      await this.#o.record(claim, { outcome: 'miss', reason: `new: ${why}`, volume: written });
      await resources.delete(ref);
      created.push(pv.metadata.name);
    }
  }

  /**
   * The claim's facts; with the delegated backend, the labels and zone of its node too, read
   * once per pass.
   */
  async factsOf(claim: KubeResource, nodes: NodeLabelCache): Promise<ClaimFacts> {
    const facts = claimFacts(claim);
    if (facts.node === undefined) return facts;
    const name = facts.node;
    if (!nodes.has(name))
      nodes.set(
        name,
        this.#o.resources.read({ kind: 'Node', name }).then((node) => node?.metadata.labels ?? {}),
      );
    const nodeLabels = await nodes.get(name)!;
    const zone = nodeZone(nodeLabels);
    return { ...facts, nodeLabels, ...(zone === undefined ? {} : { zone }) };
  }

  /**
   * Asks the delegate StorageClass for a new volume for the claim: a helper claim on the claim's
   * node (its zone), made once whoever asks (`sluice-new-<claim uid>`).
   */
  async request(claim: KubeResource, facts: ClaimFacts, reason: string) {
    const helper = helperClaimObject(claim, facts, {
      delegateClass: this.#o.delegateStorageClass,
      provisionerLabel: this.#o.provisionerLabel,
      reason,
    });
    const made = await this.#o.resources.create(helper);
    if (made === 'created')
      this.#o.log.info('new volume asked of the delegate StorageClass', {
        claim: `${facts.namespace}/${facts.name}`,
        delegate: this.#o.delegateStorageClass,
        zone: facts.zone ?? 'any',
        why: reason,
      });
  }
}
