/**
 * The volume provisioner of one runtime: for each new claim of its StorageClass in the
 * runtime's namespace it promises a released volume that a matching build warmed
 * (`chooseVolume`), or makes a new one on the node the claim's pod was given; when a claim is
 * deleted its volume is marked released with the time, ready for the next matching build.
 *
 * One leader works at a time (`LeaderLease`); it looks at the claims every `resyncMs` (a list,
 * not a watch: the loop is level-based, so a missed change is seen on the next pass and a new
 * leader needs no history). Within a pass claims are served one at a time and every write
 * carries the volume's resourceVersion, so two claims never get the same volume even across a
 * change of leader. New volumes are named after their claim's uid: a leader that dies between
 * creating a volume and anything else leaves nothing a successor would make twice.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { KubeResource, KubeResources } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import { sleep } from '@sluice/process';
import { LeaderLease } from './leader-lease.js';
import { chooseVolume } from './volume-choice.js';
import type { CacheDecision } from './volume-objects.js';
import {
  claimFacts,
  cachePatch,
  claimRefOf,
  expired,
  labelValue,
  newVolumeObject,
  PROVISIONER_LABEL,
  releasePatch,
  retirePatch,
  reusePatch,
  uidOf,
  VOLUME_ANNOTATIONS,
  volumeFacts,
} from './volume-objects.js';

export interface VolumeProvisionerOptions {
  resources: KubeResources;
  log: Logger;
  /** The StorageClass's `provisioner` field this provisioner answers to. */
  provisionerName: string;
  storageClass: string;
  /** Where the claims are: the runtime's namespace. Also the namespace of the Lease. */
  namespace: string;
  /** Parent directory of the volumes on every node. */
  volumeParentDir: string;
  /** This replica, for leader election (the pod's name). */
  identity: string;
  resyncMs?: number;
  leaseDurationMs?: number;
  /** Days a released volume is kept unused (4, as Codefresh); 0 keeps volumes for ever. */
  retentionDays?: number;
  clock?: () => number;
}

export interface PassReport {
  leader: boolean;
  reused: string[];
  created: string[];
  released: string[];
  /** Deleted for having been unused longer than their retention. */
  expired: string[];
}

export class VolumeProvisioner {
  readonly #o: Required<VolumeProvisionerOptions>;
  readonly #lease: LeaderLease;
  readonly #label: string;
  #bindingMode: string | undefined;

  constructor(options: VolumeProvisionerOptions) {
    this.#o = {
      resyncMs: 1000,
      leaseDurationMs: 15_000,
      retentionDays: 4,
      clock: Date.now,
      ...options,
    };
    this.#label = labelValue(options.provisionerName);
    this.#lease = new LeaderLease({
      resources: options.resources,
      namespace: options.namespace,
      name: `${labelValue(options.storageClass)}-provisioner`,
      identity: options.identity,
      durationMs: this.#o.leaseDurationMs,
      clock: this.#o.clock,
    });
  }

  /** Passes until the signal aborts; a failed pass is logged and the next one tries again. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.pass();
      } catch (err) {
        this.#o.log.warn('volume provisioner pass failed', { error: String(err) });
      }
      await sleep(this.#o.resyncMs, signal);
    }
    await this.#lease.release().catch(() => undefined);
  }

  /** One look at the claims and volumes, when this replica is (or becomes) the leader. */
  async pass(): Promise<PassReport> {
    const report: PassReport = {
      leader: false,
      reused: [],
      created: [],
      released: [],
      expired: [],
    };
    if (!(await this.#lease.acquireOrRenew())) return report;
    report.leader = true;
    const { resources, namespace, storageClass } = this.#o;
    const [claims, volumes] = await Promise.all([
      resources.list({ kind: 'PersistentVolumeClaim', namespace }),
      resources.list({
        kind: 'PersistentVolume',
        labelSelector: `${PROVISIONER_LABEL}=${this.#label}`,
      }),
    ]);
    const liveUids = new Set(claims.map((c) => uidOf(c)));
    for (const [i, pv] of volumes.entries()) {
      if (pv.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy] === undefined) continue;
      if (volumeFacts(pv, liveUids).inUse) continue;
      const released = await this.#write(pv, releasePatch(pv, this.#o.clock()));
      if (released === undefined) continue;
      // The released volume as it is now, so a claim below may have it in this same pass.
      volumes[i] = released;
      report.released.push(pv.metadata.name);
    }
    // Volumes deleted for their age below are no claim's to have.
    const taken = new Set<string>();
    for (const pv of volumes) {
      const facts = volumeFacts(pv, liveUids);
      if (facts.inUse || facts.retiring || pv.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy])
        continue;
      if (!expired(pv, this.#o.clock(), this.#o.retentionDays)) continue;
      // Marked first, guarded: a volume promised to a claim since it was read is left alone.
      const reason = `unused for more than its retention (last used ${facts.lastUsedMs ? new Date(facts.lastUsedMs).toISOString() : 'never'})`;
      if (!(await this.#write(pv, retirePatch(pv, reason)))) continue;
      taken.add(pv.metadata.name);
      // Its directory goes with the node agent's next pass.
      await this.#o.resources.delete({ kind: 'PersistentVolume', name: pv.metadata.name });
      report.expired.push(pv.metadata.name);
      this.#o.log.info('volume expired', { volume: pv.metadata.name, reason });
    }
    const promised = new Set(
      volumes.map((pv) => claimRefOf(pv)?.uid).filter((uid) => uid !== undefined),
    );
    for (const claim of claims) {
      const spec = claim['spec'] as { storageClassName?: string; volumeName?: string } | undefined;
      const uid = uidOf(claim);
      if (spec?.storageClassName !== storageClass || spec.volumeName) continue;
      if (claim.metadata.deletionTimestamp !== undefined || promised.has(uid)) continue;
      const outcome = await this.#serve(claim, volumes, liveUids, taken);
      if (outcome !== undefined) report[outcome.kind].push(outcome.volume);
    }
    return report;
  }

  async #serve(
    claim: KubeResource,
    volumes: KubeResource[],
    liveUids: ReadonlySet<string>,
    taken: Set<string>,
  ): Promise<{ kind: 'reused' | 'created'; volume: string } | undefined> {
    const facts = claimFacts(claim);
    const candidates = volumes
      .filter((pv) => !taken.has(pv.metadata.name))
      .map((pv) => volumeFacts(pv, liveUids));
    const choice = chooseVolume(facts, candidates);
    const where = `${facts.namespace}/${facts.name}`;
    const now = this.#o.clock();
    if (choice.kind === 'reuse') {
      const pv = volumes.find((v) => v.metadata.name === choice.volume.name)!;
      taken.add(pv.metadata.name);
      const written = await this.#write(pv, reusePatch(pv, claim, facts, this.#label, now));
      if (written === undefined) return undefined;
      const matched = [...facts.selector, ...choice.matchedSortKeys];
      this.#o.log.info('volume reused', {
        claim: where,
        volume: pv.metadata.name,
        mounts: choice.volume.mountCount + 1,
        matched: matched.join(','),
      });
      await this.#record(claim, {
        outcome: 'hit',
        reason: `reused: the same ${matched.join(', ')}`,
        volume: written,
        previousUseMs: choice.volume.lastUsedMs,
      });
      return { kind: 'reused', volume: pv.metadata.name };
    }
    const node = facts.node ?? (await this.#immediateNode());
    if (node === undefined) return undefined; // WaitForFirstConsumer: the pod's node decides.
    const name = `sluice-vol-${facts.uid}`;
    const volume = newVolumeObject(claim, facts, {
      name,
      storageClass: this.#o.storageClass,
      provisionerName: this.#o.provisionerName,
      provisionerLabel: this.#label,
      path: `${this.#o.volumeParentDir.replace(/\/+$/, '')}/${name}`,
      node,
      hostname: await this.#hostname(node),
      now,
    });
    const made = await this.#o.resources.create(volume);
    this.#o.log.info('volume created', {
      claim: where,
      volume: name,
      node,
      why: choice.reason,
      made,
    });
    await this.#record(claim, { outcome: 'miss', reason: `new: ${choice.reason}`, volume });
    return { kind: 'created', volume: name };
  }

  /**
   * Records on the claim what it got. A claim gone meanwhile, or a failed write, costs only the
   * build's cache record (the agent then reports it as not recorded), never the volume.
   */
  async #record(claim: KubeResource, decision: CacheDecision): Promise<void> {
    const ref = {
      kind: 'PersistentVolumeClaim',
      namespace: this.#o.namespace,
      name: claim.metadata.name,
    };
    try {
      await this.#o.resources.patch(ref, cachePatch(decision));
    } catch (err) {
      this.#o.log.warn('could not record the cache decision on the claim', {
        claim: `${ref.namespace}/${ref.name}`,
        error: String(err),
      });
    }
  }

  /** With `Immediate` binding no pod has a node yet: the first ready node, by name. */
  async #immediateNode(): Promise<string | undefined> {
    if (this.#bindingMode === undefined) {
      const found = await this.#o.resources.read({
        kind: 'StorageClass',
        name: this.#o.storageClass,
      });
      const mode = found?.['volumeBindingMode'];
      this.#bindingMode = typeof mode === 'string' ? mode : 'Immediate';
    }
    if (this.#bindingMode === 'WaitForFirstConsumer') return undefined;
    const nodes = await this.#o.resources.list({ kind: 'Node' });
    const ready = nodes.filter((n) =>
      (
        (n['status'] as { conditions?: Array<{ type: string; status: string }> } | undefined)
          ?.conditions ?? []
      ).some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.map((n) => n.metadata.name).sort()[0];
  }

  async #hostname(node: string): Promise<string> {
    const found = await this.#o.resources.read({ kind: 'Node', name: node });
    return found?.metadata.labels?.['kubernetes.io/hostname'] ?? node;
  }

  /**
   * A patch guarded by resourceVersion: the volume as it is now, or undefined when it changed
   * since it was read (409) or is gone (404).
   */
  async #write(
    pv: KubeResource,
    patch: Record<string, unknown>,
  ): Promise<KubeResource | undefined> {
    try {
      return await this.#o.resources.patch(
        { kind: 'PersistentVolume', name: pv.metadata.name },
        patch,
      );
    } catch (err) {
      if (isSluiceError(err) && err.code === 'SLUICE_KUBE_CONFLICT') return undefined;
      throw err;
    }
  }
}
