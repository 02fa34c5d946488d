/**
 * Each build's cache record, read off its claim: once the claim is bound, what the volume
 * provisioner recorded on it (`CACHE_ANNOTATIONS`: hit or miss and why, the volume, its first
 * and previous use, mount count) goes to the control plane, which keeps it on the build (the
 * API, `describe build`). A claim bound by a provisioner that records nothing is reported as
 * `unknown`, with its StorageClass named, once it has been seen bound without a record for
 * `UNRECORDED_GRACE_MS`: Sluice's provisioner binds the volume first and records on the claim a
 * moment later, and a pass in between must not report that claim unknown. Each claim is reported
 * once; one the control plane did not take is sent again on the next pass.
 * @module
 */
import { describeError } from '@sluice/errors';
import type { KubeClaim, KubeClient } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import type { BuildCache } from '@sluice/protocol';
import { BUILD_LABELS, CACHE_ANNOTATIONS, runtimeSelector } from '@sluice/labels';

/** Sends one build's cache record to the control plane. */
export type ReportBuildCache = (buildId: string, cache: BuildCache) => Promise<void>;

export interface CacheRecordsOptions {
  kube: KubeClient;
  runtime: string;
  namespace: string;
  logger: Logger;
  report: ReportBuildCache;
  /** Milliseconds now (tests); `Date.now` by default. */
  clock?: () => number;
}

/** How long a bound claim without a record waits for one before it is reported unknown. */
export const UNRECORDED_GRACE_MS = 15_000;

export class CacheRecords {
  readonly #o: CacheRecordsOptions;
  /** Claims (by uid) whose record the control plane took. */
  readonly #reported = new Set<string>();
  /** Bound claims (by uid) without a record yet: when each was first seen so. */
  readonly #unrecordedSince = new Map<string, number>();

  constructor(options: CacheRecordsOptions) {
    this.#o = options;
  }

  /** One pass over the runtime's claims: one list call. */
  async pass(signal?: AbortSignal): Promise<void> {
    const { kube, namespace, runtime } = this.#o;
    const claims = await kube.listClaims(
      { namespace, labelSelector: runtimeSelector(runtime) },
      signal === undefined ? {} : { signal },
    );
    const listed = new Set<string>();
    for (const claim of claims) {
      const uid = claim.metadata.uid ?? claim.metadata.name;
      listed.add(uid);
      const buildId = claim.metadata.labels?.[BUILD_LABELS.buildId];
      if (this.#reported.has(uid) || !buildId || claim.status?.phase !== 'Bound') continue;
      const record = cacheRecord(claim);
      const now = (this.#o.clock ?? Date.now)();
      if (record.outcome === 'unknown') {
        const since = this.#unrecordedSince.get(uid) ?? now;
        this.#unrecordedSince.set(uid, since);
        if (!graceOver(since, now)) continue;
      }
      try {
        await this.#o.report(buildId, record);
        this.#reported.add(uid);
      } catch (err) {
        this.#o.logger.warn('cache record not reported', {
          runtime,
          buildId,
          claim: claim.metadata.name,
          error: describeError(err),
        });
      }
    }
    for (const uid of this.#reported) if (!listed.has(uid)) this.#reported.delete(uid);
    for (const uid of this.#unrecordedSince.keys())
      if (!listed.has(uid) || this.#reported.has(uid)) this.#unrecordedSince.delete(uid);
  }
}

/** Whether a claim first seen bound without a record at `since` is to be reported unknown now. */
export function graceOver(since: number, now: number): boolean {
  return now - since >= UNRECORDED_GRACE_MS;
}

/** The record of a bound claim, from the provisioner's annotations when it left them. */
export function cacheRecord(claim: KubeClaim): BuildCache {
  const notes = claim.metadata.annotations ?? {};
  const outcome = notes[CACHE_ANNOTATIONS.outcome];
  const storageClass = claim.spec?.storageClassName ?? null;
  const recorded = outcome === 'hit' || outcome === 'miss';
  const mounts = Number(notes[CACHE_ANNOTATIONS.mounts]);
  const used = Number(notes[CACHE_ANNOTATIONS.usedBytes] ?? NaN);
  return {
    outcome: recorded ? outcome : 'unknown',
    reason: recorded
      ? (notes[CACHE_ANNOTATIONS.reason] ?? '')
      : `no reuse was recorded on the claim: StorageClass ${storageClass ?? '(the default)'} is not served by Sluice's volume provisioner (runner init --warm-volumes installs one), or the provisioner stopped between giving the volume and recording it`,
    volume: claim.spec?.volumeName ?? notes[CACHE_ANNOTATIONS.volume] ?? null,
    claim: claim.metadata.name,
    volumeCreatedAt: time(notes[CACHE_ANNOTATIONS.created]),
    previousUseAt: time(notes[CACHE_ANNOTATIONS.previousUse]),
    mountCount: Number.isInteger(mounts) && mounts >= 0 && recorded ? mounts : null,
    usedBytes: Number.isSafeInteger(used) && used >= 0 ? used : null,
    capacity: claim.status?.capacity?.storage ?? null,
    storageClass,
  };
}

function time(text: string | undefined): string | null {
  return text !== undefined && !Number.isNaN(Date.parse(text)) ? text : null;
}
