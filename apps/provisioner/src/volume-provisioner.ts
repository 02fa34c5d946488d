/**
 * The volume provisioner of one runtime: for each new claim of its StorageClass in the
 * runtime's namespace it promises a released volume that a matching build warmed
 * (`chooseVolume`), or else a spare — an empty `local` volume the node agent keeps ready on the
 * claim's node (`spare-volumes.ts`); when a claim is deleted its volume is marked released with
 * the time, ready for the next matching build. A claim that comes while the matching volume's
 * last build is ending (its claim deleted, its pod still stopping) waits for that volume.
 *
 * One leader works at a time (`LeaderLease`). Watches of the claims and of its volumes wake the
 * loop the moment a claim appears or a volume changes; each pass still lists both (the loop is
 * level-based, so a missed or coalesced event costs nothing and a new leader needs no history),
 * and with nothing changing a pass comes every `resyncMs` anyway, and often enough to renew the
 * lease. Within a pass claims are served one at a time and every write carries the volume's
 * resourceVersion, so two claims never get the same volume even across a change of leader.
 *
 * With `delegateStorageClass` (`volumeBackend: delegate`), new volumes come from that class of
 * the cluster (a cloud's CSI driver) through helper claims instead of spares, and a released
 * volume serves only claims whose node its zone allows (`delegate-volumes.ts`, `zones.ts`).
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import { watchChanges } from '@sluice/kube';
import type { KubeResource, KubeResources } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import { LeaderLease } from './leader-lease.js';
import { DelegateBackend } from './delegate-backend.js';
import type { NodeLabelCache } from './delegate-backend.js';
import { deleteThroughDelegatePatch, isDelegated } from './delegate-volumes.js';
import { chooseVolume } from './volume-choice.js';
import type { ClaimFacts, VolumeChoice, VolumeFacts } from './volume-choice.js';
import { Wakeup } from './wakeup.js';
import type { CacheDecision } from './volume-objects.js';
import {
  claimFacts,
  cachePatch,
  claimRefOf,
  expired,
  labelValue,
  PROVISIONER_LABEL,
  releasePatch,
  retirePatch,
  reusePatch,
  spareState,
  storageClassOf,
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
  /** This replica, for leader election (the pod's name). */
  identity: string;
  /** Time between passes when no watch event came (30 s); the watches answer changes at once. */
  resyncMs?: number;
  leaseDurationMs?: number;
  /** Days a released volume is kept unused (4, as Codefresh); 0 keeps volumes for ever. */
  retentionDays?: number;
  /**
   * The cluster's StorageClass that makes new volumes (`volumeBackend: delegate`); empty: the
   * node agent's `local` spares (`volumeBackend: local`).
   */
  delegateStorageClass?: string;
  /**
   * How long a claim may wait for a matching volume whose build is over but whose pod is still
   * stopping (120 s: seconds usually, over 30 s on a loaded node; a stuck one must not hold builds for ever), before it gets a new one.
   */
  releaseWaitMs?: number;
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
  readonly #delegate: DelegateBackend | undefined;
  /** Claims told (once) that no spare was ready for them. */
  readonly #waiting = new Set<string>();
  /** Claims told (once) that they wait for a warm volume being released. */
  readonly #awaitingRelease = new Set<string>();

  constructor(options: VolumeProvisionerOptions) {
    this.#o = {
      resyncMs: 30_000,
      leaseDurationMs: 15_000,
      retentionDays: 4,
      releaseWaitMs: 120_000,
      delegateStorageClass: '',
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
    this.#delegate =
      this.#o.delegateStorageClass === ''
        ? undefined
        : new DelegateBackend({
            ...this.#o,
            provisionerLabel: this.#label,
            write: (pv, patch) => this.#write(pv, patch),
            record: (claim, decision) => this.#record(claim, decision),
          });
  }

  /**
   * Passes until the signal aborts: at once when a watched claim or volume changes, else every
   * `resyncMs`, and every third of the lease so the leader renews it and a standby notices an
   * expired one. A failed pass is logged and the next one tries again.
   */
  async run(signal: AbortSignal): Promise<void> {
    const wakeup = new Wakeup();
    const { resources, namespace, log } = this.#o;
    const failed = (err: unknown) =>
      log.warn('volume provisioner watch failed', { error: String(err) });
    const watch = resources.watch.bind(resources);
    const watches = [
      { kind: 'PersistentVolumeClaim', namespace },
      { kind: 'PersistentVolume', labelSelector: `${PROVISIONER_LABEL}=${this.#label}` },
    ].map((query) => watchChanges(watch, query, () => wakeup.set(), { signal, failed }));
    const interval = Math.min(this.#o.resyncMs, this.#o.leaseDurationMs / 3);
    while (!signal.aborted) {
      try {
        await this.pass();
      } catch (err) {
        log.warn('volume provisioner pass failed', { error: String(err) });
      }
      await wakeup.sleep(interval, signal);
    }
    await Promise.all(watches);
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
    const endingUids = new Set(
      claims.filter((c) => c.metadata.deletionTimestamp !== undefined).map((c) => uidOf(c)),
    );
    for (const waiting of [this.#waiting, this.#awaitingRelease])
      for (const uid of waiting) if (!liveUids.has(uid)) waiting.delete(uid);
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
      if (isDelegated(pv)) {
        // Its driver deletes the disk, then the controller-manager the volume.
        if (!(await this.#write(pv, deleteThroughDelegatePatch(pv, reason)))) continue;
        taken.add(pv.metadata.name);
      } else {
        if (!(await this.#write(pv, retirePatch(pv, reason)))) continue;
        taken.add(pv.metadata.name);
        // Its directory goes with the node agent's next pass.
        await this.#o.resources.delete({ kind: 'PersistentVolume', name: pv.metadata.name });
      }
      report.expired.push(pv.metadata.name);
      this.#o.log.info('volume expired', { volume: pv.metadata.name, reason });
    }
    const promised = new Set(
      volumes.map((pv) => claimRefOf(pv)?.uid).filter((uid) => uid !== undefined),
    );
    const nodes: NodeLabelCache = new Map();
    // Claims whose volume the delegate is making: they wait for it.
    const pending = new Set<string>();
    await this.#delegate?.settle(claims, promised, pending, nodes, report.created);
    for (const claim of claims) {
      const spec = claim['spec'] as { storageClassName?: string; volumeName?: string } | undefined;
      const uid = uidOf(claim);
      if (spec?.storageClassName !== storageClass || spec.volumeName) continue;
      if (claim.metadata.deletionTimestamp !== undefined || promised.has(uid)) continue;
      if (pending.has(uid)) continue;
      const outcome = await this.#serve(claim, volumes, { liveUids, endingUids }, taken, nodes);
      if (outcome !== undefined) report[outcome.kind].push(outcome.volume);
    }
    return report;
  }

  async #serve(
    claim: KubeResource,
    volumes: KubeResource[],
    uids: { liveUids: ReadonlySet<string>; endingUids: ReadonlySet<string> },
    taken: Set<string>,
    nodes: NodeLabelCache,
  ): Promise<{ kind: 'reused' | 'created'; volume: string } | undefined> {
    // A zonal disk is chosen for the pod's node: with WaitForFirstConsumer, once there is one.
    if (this.#delegate !== undefined && claimFacts(claim).node === undefined)
      if ((await this.#bindingModeOf()) === 'WaitForFirstConsumer') return undefined;
    const facts = (await this.#delegate?.factsOf(claim, nodes)) ?? claimFacts(claim);
    const candidates = volumes
      .filter((pv) => !taken.has(pv.metadata.name) && storageClassOf(pv) === this.#o.storageClass)
      .map((pv) => volumeFacts(pv, uids.liveUids, uids.endingUids));
    const where = `${facts.namespace}/${facts.name}`;
    const now = this.#o.clock();
    const choice = this.#waitOrGiveUp(claim, facts, candidates, now);
    if (choice === undefined) return undefined;
    if (choice.kind === 'reuse') {
      const pv = volumes.find((v) => v.metadata.name === choice.volume.name)!;
      taken.add(pv.metadata.name);
      const written = await this.#write(pv, reusePatch(pv, claim, facts, this.#label, { now }));
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
    if (this.#delegate !== undefined) {
      await this.#delegate.request(claim, facts, choice.reason);
      return undefined;
    }
    const spare = await this.#spareFor(facts, volumes, taken);
    if (spare === undefined) return undefined;
    taken.add(spare.metadata.name);
    const written = await this.#write(
      spare,
      reusePatch(spare, claim, facts, this.#label, { now, resize: true }),
    );
    // Taken or retired since it was read: the change wakes the next pass.
    if (written === undefined) return undefined;
    this.#waiting.delete(facts.uid);
    this.#o.log.info('volume created', {
      claim: where,
      volume: spare.metadata.name,
      node: spare.metadata.annotations?.[VOLUME_ANNOTATIONS.node],
      why: choice.reason,
    });
    await this.#record(claim, {
      outcome: 'miss',
      reason: `new: ${choice.reason}`,
      volume: written,
    });
    return { kind: 'created', volume: spare.metadata.name };
  }

  /**
   * The claim's volume; undefined while it waits. A claim whose warm volume is being released
   * waits for it (the release wakes the next pass), for at most `releaseWaitMs` from the claim's
   * creation; then a claim that named a volume it prefers has the usual choice, and any other
   * gets a new volume, and the miss says why.
   */
  #waitOrGiveUp(
    claim: KubeResource,
    facts: ClaimFacts,
    candidates: readonly VolumeFacts[],
    now: number,
  ): Exclude<VolumeChoice, { kind: 'wait' }> | undefined {
    let choice = chooseVolume(facts, candidates);
    if (choice.kind !== 'wait') return choice;
    const stamp = claim.metadata['creationTimestamp'];
    const created = (typeof stamp === 'string' && Date.parse(stamp)) || now;
    const waitedMs = now - created;
    if (waitedMs < this.#o.releaseWaitMs) {
      const uid = uidOf(claim);
      if (!this.#awaitingRelease.has(uid)) {
        this.#awaitingRelease.add(uid);
        this.#o.log.info('claim waits for a warm volume being released', {
          claim: `${claim.metadata.namespace ?? ''}/${claim.metadata.name}`,
          volume: choice.volume.name,
        });
      }
      return undefined;
    }
    if (facts.prefer !== undefined) {
      const { prefer: _, ...usual } = facts;
      choice = chooseVolume(usual, candidates);
      if (choice.kind !== 'wait') return choice;
    }
    return {
      kind: 'new',
      reason: `${choice.reason}, and was not free ${Math.round(waitedMs / 1000)} s after this claim came`,
    };
  }

  /**
   * A ready spare for a claim no warm volume serves: on the node of the claim's pod once the
   * scheduler picked one; before that, with `WaitForFirstConsumer`, none (the pod's node
   * decides), with `Immediate`, any (the volume's node affinity then places the pod).
   */
  async #spareFor(
    facts: ClaimFacts,
    volumes: KubeResource[],
    taken: ReadonlySet<string>,
  ): Promise<KubeResource | undefined> {
    if (facts.node === undefined && (await this.#bindingModeOf()) === 'WaitForFirstConsumer')
      return undefined;
    const spare = volumes
      .filter((pv) => spareState(pv) === 'ready' && !taken.has(pv.metadata.name))
      .filter((pv) => storageClassOf(pv) === this.#o.storageClass)
      .filter((pv) => pv.metadata.annotations?.[VOLUME_ANNOTATIONS.retiring] === undefined)
      .filter(
        (pv) =>
          facts.node === undefined ||
          pv.metadata.annotations?.[VOLUME_ANNOTATIONS.node] === facts.node,
      )
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
    if (spare === undefined && !this.#waiting.has(facts.uid)) {
      this.#waiting.add(facts.uid);
      // The node agent refills its spares as they are taken; without one the claim waits.
      this.#o.log.info('no spare volume ready for the claim yet', {
        claim: `${facts.namespace}/${facts.name}`,
        node: facts.node ?? 'any',
      });
    }
    return spare;
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

  /** The StorageClass's `volumeBindingMode`, read once. */
  async #bindingModeOf(): Promise<string> {
    if (this.#bindingMode === undefined) {
      const found = await this.#o.resources.read({
        kind: 'StorageClass',
        name: this.#o.storageClass,
      });
      const mode = found?.['volumeBindingMode'];
      this.#bindingMode = typeof mode === 'string' ? mode : 'Immediate';
    }
    return this.#bindingMode;
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
