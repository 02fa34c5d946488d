/**
 * Leader election through a `coordination.k8s.io/v1` Lease (served from 1.14 to 1.36): one
 * provisioner of a runtime works at a time, a standby takes over when the leader stops renewing.
 *
 * Every write carries the Lease's `resourceVersion`, so two candidates that read the same Lease
 * cannot both win: the second write is refused with 409 and that candidate stays a standby.
 * A leader that cannot renew before its lease runs out stops working on its own (`isLeader`
 * turns false at the expiry it wrote), so an old leader and a new one never overlap as long as
 * their clocks agree within the margin.
 * @module
 */
import { isSluiceError } from '@sluice/errors';
import type { KubeResource, KubeResources } from '@sluice/kube';

export interface LeaderLeaseOptions {
  resources: KubeResources;
  namespace: string;
  name: string;
  /** This candidate, e.g. the pod's name. */
  identity: string;
  durationMs: number;
  clock?: () => number;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export class LeaderLease {
  readonly #options: Required<LeaderLeaseOptions>;
  /** Until when this candidate may act as the leader; 0 when it is not the leader. */
  #leaderUntil = 0;

  constructor(options: LeaderLeaseOptions) {
    this.#options = { clock: Date.now, ...options };
  }

  isLeader(): boolean {
    return this.#options.clock() < this.#leaderUntil;
  }

  /** Takes the lease when it is free or expired, renews it when held; true when leader. */
  async acquireOrRenew(): Promise<boolean> {
    const { resources, namespace, name, identity, durationMs, clock } = this.#options;
    const now = clock();
    const lease = await resources.read({ kind: 'Lease', namespace, name });
    const spec = (lease?.['spec'] ?? {}) as LeaseSpec;
    const heldByOther =
      spec.holderIdentity !== undefined &&
      spec.holderIdentity !== '' &&
      spec.holderIdentity !== identity;
    const expiresAt =
      Date.parse(spec.renewTime ?? '') + (spec.leaseDurationSeconds ?? 0) * 1000 || 0;
    if (heldByOther && expiresAt > now) {
      this.#leaderUntil = 0;
      return false;
    }
    const renew: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(durationMs / 1000),
      renewTime: microTime(now),
      acquireTime: heldByOther || lease === undefined ? microTime(now) : spec.acquireTime,
      leaseTransitions: (spec.leaseTransitions ?? 0) + (heldByOther ? 1 : 0),
    };
    const won =
      lease === undefined
        ? (await resources.create(leaseObject(namespace, name, renew))) === 'created'
        : await this.#update(lease, renew);
    this.#leaderUntil = won ? now + durationMs : 0;
    return won;
  }

  /** Gives the lease up at once (on shutdown), so a standby need not wait for it to expire. */
  async release(): Promise<void> {
    if (!this.isLeader()) return;
    this.#leaderUntil = 0;
    const { resources, namespace, name } = this.#options;
    const lease = await resources.read({ kind: 'Lease', namespace, name });
    if (lease === undefined) return;
    await this.#update(lease, { holderIdentity: '', renewTime: microTime(this.#options.clock()) });
  }

  async #update(lease: KubeResource, spec: LeaseSpec): Promise<boolean> {
    const { resources, namespace, name } = this.#options;
    try {
      await resources.patch(
        { kind: 'Lease', namespace, name },
        { metadata: { resourceVersion: lease.metadata.resourceVersion }, spec },
      );
      return true;
    } catch (err) {
      if (isSluiceError(err) && err.code === 'SLUICE_KUBE_CONFLICT') return false;
      throw err;
    }
  }
}

function leaseObject(namespace: string, name: string, spec: LeaseSpec): KubeResource {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace },
    spec,
  };
}

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
