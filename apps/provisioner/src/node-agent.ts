/**
 * The node agent of the volume provisioner: one per node (a DaemonSet), with the volumes'
 * parent directory mounted. Each pass it
 *
 * 1. removes the directories of volumes being deleted (retired here, expired by the provisioner's
 *    retention, removed by `runner delete` or by hand), then their finalizer
 *    (`VOLUME_FINALIZER`), so the volume goes only once its data has; and of volumes already
 *    gone, and nothing else: only `sluice-vol-*` directories, and only those listed before the
 *    volumes were (a volume made between the two reads is in the second). A volume of its node
 *    without the finalizer (made before it, or kept by `runner delete --keep-volumes`) gets it;
 * 2. measures the parent directory's filesystem (space and inodes, `statfs`), and above either
 *    threshold retires one volume of this node that no claim uses — the least recently used —
 *    then measures again on the next pass, so no more go than needed.
 *
 * 3. reports each volume of this node (size used, builds that had it, last use, in use) for
 *    `/metrics`; sizes are walked (as `du` counts: allocated blocks) at most every
 *    `sizeIntervalMs`, so a large cache costs one walk per interval, never per pass.
 *
 * Between passes it keeps `spares` empty volumes ready on its node (`spare-volumes.ts`), while
 * its StorageClass exists (an install being deleted removes it before its volumes): a
 * `local` volume's directory must exist before the kubelet mounts it, so the agent makes the
 * directories and publishes them as spares, and the provisioner gives a new claim a spare. A
 * watch of the volumes refills the moment one is taken. Spares and passes take turns, never
 * overlapping, so a pass never sees a spare's directory without its volume.
 *
 * Retiring is first a patch marking the volume `sluice.io/retiring`, guarded by its
 * resourceVersion (a volume the provisioner promised to a claim since it was read has changed,
 * and is left alone), then the PersistentVolume's deletion and its directory's. A volume in use
 * (bound, or promised: `sluice.io/used-by` set) is never retired.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSluiceError } from '@sluice/errors';
import { watchChanges } from '@sluice/kube';
import type { KubeResource, KubeResources } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import { spareReadyPatch, spareVolumeObject } from './spare-volumes.js';
import {
  hasVolumeFinalizer,
  labelValue,
  PROVISIONER_LABEL,
  retirePatch,
  spareState,
  storageClassOf,
  VOLUME_ANNOTATIONS,
  withFinalizer,
  withoutFinalizer,
} from './volume-objects.js';
import { Wakeup } from './wakeup.js';
import { directoryBytes, diskUsage } from './disk-usage.js';
import type { DiskUsage } from './disk-usage.js';

export interface NodeAgentOptions {
  resources: KubeResources;
  log: Logger;
  /** This node's name: the volumes it looks after carry it in `sluice.io/node`. */
  nodeName: string;
  provisionerName: string;
  /** The StorageClass its spares belong to (the provisioner's). */
  storageClass: string;
  volumeParentDir: string;
  /** Empty volumes kept ready on this node for new claims (2). */
  spares?: number;
  /** Fraction of the space in use above which a volume is retired (0.8). */
  diskThreshold?: number;
  /** Fraction of the inodes in use above which a volume is retired (0.8). */
  inodeThreshold?: number;
  intervalMs?: number;
  /** How old a volume's measured size may get before it is walked again (10 minutes). */
  sizeIntervalMs?: number;
  clock?: () => number;
}

/** One volume of this node as the last pass saw it. */
export interface VolumeUse {
  name: string;
  /** Bytes its directory holds (allocated blocks); undefined until first measured. */
  usedBytes: number | undefined;
  mountCount: number;
  /** Its last use (ms since the epoch); 0 when never. */
  lastUsedMs: number;
  inUse: boolean;
}

export interface NodeAgentReport {
  usage: DiskUsage;
  /** Directories removed because their volume is gone. */
  removed: string[];
  /** The volume retired this pass, if any. */
  retired: string | undefined;
  /** The volumes of this node after the pass. */
  volumes: VolumeUse[];
}

const VOLUME_DIR = /^sluice-vol-[a-z0-9-]+$/;

export class NodeAgent {
  readonly #o: Required<NodeAgentOptions>;
  /** Sizes walked, by volume, with when. */
  readonly #sizes = new Map<string, { bytes: number; at: number }>();
  #host: string | undefined;
  #classGoneSaid = false;
  /** The end of the pass or refill under way. */
  #turn: Promise<unknown> = Promise.resolve();

  constructor(options: NodeAgentOptions) {
    this.#o = {
      diskThreshold: 0.8,
      inodeThreshold: 0.8,
      spares: 2,
      intervalMs: 60_000,
      sizeIntervalMs: 600_000,
      clock: Date.now,
      ...options,
    };
  }

  /** Passes until the signal aborts, and spares kept meanwhile; each report (or failure) also goes to `watch`. */
  async run(
    signal: AbortSignal,
    watch: { passed?(report: NodeAgentReport): void; failed?(): void } = {},
  ): Promise<void> {
    const wakeup = new Wakeup();
    // A volume being deleted waits for this agent to remove its directory: pass at once.
    const spares = this.keepSpares(signal, () => wakeup.set());
    while (!signal.aborted) {
      try {
        watch.passed?.(await this.pass());
      } catch (err) {
        watch.failed?.();
        this.#o.log.warn('volume node agent pass failed', { error: String(err) });
      }
      await wakeup.sleep(this.#o.intervalMs, signal);
    }
    await spares;
  }

  /**
   * Keeps `spares` ready on this node until the signal aborts: refilled as soon as one is taken.
   * `deleting` is called when a volume of the provisioner is deleted.
   */
  async keepSpares(signal: AbortSignal, deleting: () => void = () => undefined): Promise<void> {
    const { resources, log } = this.#o;
    const wakeup = new Wakeup();
    const watching = watchChanges(
      resources.watch.bind(resources),
      { kind: 'PersistentVolume', labelSelector: this.#selector() },
      (event) => {
        wakeup.set();
        if (event?.object.metadata.deletionTimestamp !== undefined) deleting();
      },
      { signal, failed: (err) => log.warn('volume agent watch failed', { error: String(err) }) },
    );
    while (!signal.aborted) {
      try {
        await this.refill();
      } catch (err) {
        log.warn('volume agent could not make a spare volume', { error: String(err) });
      }
      // A refill that failed is tried again within seconds, not at the next change.
      await wakeup.sleep(Math.min(this.#o.intervalMs, 5000), signal);
    }
    await watching;
  }

  /**
   * Brings this node's spares up to `spares`: finishes the ones left pending (a restart between
   * the volume and its directory), then makes the missing ones, each volume before its
   * directory. Returns the names of the spares made ready.
   */
  refill(): Promise<string[]> {
    return this.#exclusive(async () => {
      // The class is gone (the install is being deleted): a spare of it could serve no claim.
      if (!(await this.#classExists())) return [];
      const volumes = await this.#o.resources.list({
        kind: 'PersistentVolume',
        labelSelector: this.#selector(),
      });
      const mine = volumes.filter(
        (pv) =>
          this.#mine(pv) &&
          spareState(pv) !== undefined &&
          storageClassOf(pv) === this.#o.storageClass &&
          !retiring(pv),
      );
      const ready: string[] = [];
      for (const pv of mine.filter((v) => spareState(v) === 'pending'))
        if (await this.#finishSpare(pv)) ready.push(pv.metadata.name);
      for (let n = mine.length; n < this.#o.spares; n++) {
        const name = `sluice-vol-${randomUUID()}`;
        const pv = spareVolumeObject({
          name,
          storageClass: this.#o.storageClass,
          provisionerName: this.#o.provisionerName,
          provisionerLabel: labelValue(this.#o.provisionerName),
          path: join(this.#o.volumeParentDir, name),
          node: this.#o.nodeName,
          hostname: await this.#hostname(),
          now: this.#o.clock(),
        });
        await this.#o.resources.create(pv);
        if (await this.#finishSpare(pv)) ready.push(name);
      }
      return ready;
    });
  }

  async #finishSpare(pv: KubeResource): Promise<boolean> {
    await mkdir(join(this.#o.volumeParentDir, pv.metadata.name), { recursive: true });
    const ready = await this.#o.resources.patch(
      { kind: 'PersistentVolume', name: pv.metadata.name },
      spareReadyPatch(),
    );
    if (ready === undefined) return false; // deleted meanwhile: the next pass removes the directory
    this.#o.log.info('spare volume ready', { volume: pv.metadata.name });
    return true;
  }

  async #classExists(): Promise<boolean> {
    const { resources, storageClass, log } = this.#o;
    const exists =
      (await resources.read({ kind: 'StorageClass', name: storageClass })) !== undefined;
    if (!exists && !this.#classGoneSaid)
      log.warn('no spare volumes made: the StorageClass is gone', { storageClass });
    this.#classGoneSaid = !exists;
    return exists;
  }

  /** The node's `kubernetes.io/hostname` label, which a volume's node affinity names. */
  async #hostname(): Promise<string> {
    if (this.#host === undefined) {
      const node = await this.#o.resources.read({ kind: 'Node', name: this.#o.nodeName });
      this.#host = node?.metadata.labels?.['kubernetes.io/hostname'] ?? this.#o.nodeName;
    }
    return this.#host;
  }

  #selector(): string {
    return `${PROVISIONER_LABEL}=${labelValue(this.#o.provisionerName)}`;
  }

  /** Runs `work` after whatever this agent is doing: passes and refills never overlap. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#turn.then(work);
    this.#turn = next.catch(() => undefined);
    return next;
  }

  pass(): Promise<NodeAgentReport> {
    return this.#exclusive(() => this.#pass());
  }

  async #pass(): Promise<NodeAgentReport> {
    const { resources, volumeParentDir } = this.#o;
    // Directories first: a volume made after this read is in the list below.
    const dirs = (await readdir(volumeParentDir)).filter((name) => VOLUME_DIR.test(name));
    const volumes = await resources.list({
      kind: 'PersistentVolume',
      labelSelector: this.#selector(),
    });
    const names = new Set(volumes.map((pv) => pv.metadata.name));
    const removed: string[] = [];
    for (const dir of dirs.filter((d) => !names.has(d))) {
      await rm(join(volumeParentDir, dir), { recursive: true, force: true });
      removed.push(dir);
      this.#o.log.info('volume directory removed: its volume is gone', { dir });
    }
    for (const pv of volumes.filter((v) => this.#mine(v))) {
      if (pv.metadata.deletionTimestamp !== undefined) {
        // Deleted (by the provisioner's retention, `runner delete` or by hand): its directory
        // goes, then the volume. Bound, its pod may still write there: the claim goes first.
        if (!bound(pv) && (await this.#finish(pv))) removed.push(pv.metadata.name);
      } else if (retiring(pv) && !bound(pv)) {
        // A retirement cut short (a restart between the mark and the deletion) is finished.
        await this.#remove(pv, 'finishing its retirement');
      } else if (!hasVolumeFinalizer(pv)) {
        // Made before the finalizer, or kept by `runner delete --keep-volumes`: adopted.
        await this.#guarded(pv, withFinalizer(pv));
      }
    }
    const usage = await diskUsage(volumeParentDir);
    const full = usage.space > this.#o.diskThreshold || usage.inodes > this.#o.inodeThreshold;
    const retired = full ? await this.#retireOne(volumes, usage) : undefined;
    const gone = new Set([...removed, ...(retired === undefined ? [] : [retired])]);
    const kept = volumes.filter(
      (pv) => this.#mine(pv) && !gone.has(pv.metadata.name) && spareState(pv) === undefined,
    );
    return { usage, removed, retired, volumes: await this.#uses(kept) };
  }

  async #uses(volumes: KubeResource[]): Promise<VolumeUse[]> {
    const now = this.#o.clock();
    const names = new Set(volumes.map((pv) => pv.metadata.name));
    for (const name of this.#sizes.keys()) if (!names.has(name)) this.#sizes.delete(name);
    const uses: VolumeUse[] = [];
    for (const pv of volumes) {
      const name = pv.metadata.name;
      let size = this.#sizes.get(name);
      if (size === undefined || now - size.at >= this.#o.sizeIntervalMs) {
        const bytes = await directoryBytes(join(this.#o.volumeParentDir, name));
        if (bytes !== undefined) {
          this.#sizes.set(name, (size = { bytes, at: now }));
          await this.#noteSize(pv, bytes);
        }
      }
      uses.push({
        name,
        usedBytes: size?.bytes,
        mountCount: Number(pv.metadata.annotations?.[VOLUME_ANNOTATIONS.mountCount] ?? 0) || 0,
        lastUsedMs: lastUsed(pv),
        inUse: inUse(pv),
      });
    }
    return uses;
  }

  async #retireOne(volumes: KubeResource[], usage: DiskUsage): Promise<string | undefined> {
    const candidates = volumes
      // A spare is an empty directory: retiring it frees nothing.
      .filter((pv) => this.#mine(pv) && !inUse(pv) && spareState(pv) === undefined)
      .sort((a, b) => lastUsed(a) - lastUsed(b) || a.metadata.name.localeCompare(b.metadata.name));
    const { resources, log } = this.#o;
    for (const pv of candidates) {
      const name = pv.metadata.name;
      const reason = `disk ${percent(usage.space)} and inodes ${percent(usage.inodes)} in use on ${this.#o.nodeName}`;
      try {
        await resources.patch({ kind: 'PersistentVolume', name }, retirePatch(pv, reason));
      } catch (err) {
        // Promised to a claim since it was read: try the next one.
        if (isSluiceError(err) && err.code === 'SLUICE_KUBE_CONFLICT') continue;
        throw err;
      }
      await this.#remove(pv, reason);
      return name;
    }
    log.warn('the volumes disk is full and every volume on it is in use', {
      node: this.#o.nodeName,
      space: percent(usage.space),
    });
    return undefined;
  }

  /**
   * Writes the measured size on the volume (`sluice.io/used-bytes`) when it moved by more than
   * 1 %, so the next claim's cache record says how much cache it got. Only that annotation is
   * patched, unguarded: a provisioner write racing it is refused (409) and redone next pass.
   */
  async #noteSize(pv: KubeResource, bytes: number): Promise<void> {
    const noted = Number(pv.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBytes]);
    if (Number.isFinite(noted) && Math.abs(noted - bytes) <= bytes * 0.01) return;
    const patch = { metadata: { annotations: { [VOLUME_ANNOTATIONS.usedBytes]: String(bytes) } } };
    try {
      await this.#o.resources.patch({ kind: 'PersistentVolume', name: pv.metadata.name }, patch);
    } catch (err) {
      this.#o.log.warn('could not note a volume size', {
        volume: pv.metadata.name,
        error: String(err),
      });
    }
  }

  /** On this node, and in this agent's directory (never a volume it cannot see). */
  #mine(pv: KubeResource): boolean {
    // `local` volumes; hostPath ones were made by provisioners before spares.
    const spec = pv['spec'] as
      { local?: { path?: string }; hostPath?: { path?: string } } | undefined;
    const path = spec?.local?.path ?? spec?.hostPath?.path;
    return (
      pv.metadata.annotations?.[VOLUME_ANNOTATIONS.node] === this.#o.nodeName &&
      path === join(this.#o.volumeParentDir, pv.metadata.name)
    );
  }

  /** Deletes a volume, then its directory, then lets it go. */
  async #remove(pv: KubeResource, reason: string): Promise<void> {
    const ref = { kind: 'PersistentVolume', name: pv.metadata.name };
    await this.#o.resources.delete(ref);
    const deleting = await this.#o.resources.read(ref);
    if (deleting === undefined) {
      // Without the finalizer (made before it): it is gone already, its directory next.
      await rm(join(this.#o.volumeParentDir, pv.metadata.name), { recursive: true, force: true });
    } else await this.#finish(deleting);
    this.#o.log.info('volume retired', { volume: pv.metadata.name, reason });
  }

  /**
   * Removes a deleted volume's directory, then its finalizer, re-reading the volume when another
   * writer (the controller-manager dropping its own finalizer) changed it meanwhile; false when
   * it is still there after three tries (the next pass finishes it).
   */
  async #finish(pv: KubeResource): Promise<boolean> {
    const ref = { kind: 'PersistentVolume', name: pv.metadata.name };
    await rm(join(this.#o.volumeParentDir, ref.name), { recursive: true, force: true });
    let current: KubeResource | undefined = pv;
    for (let attempt = 0; attempt < 3 && current !== undefined; attempt++) {
      if (
        !hasVolumeFinalizer(current) ||
        (await this.#guarded(current, withoutFinalizer(current)))
      ) {
        this.#o.log.info('volume directory removed: its volume was deleted', { volume: ref.name });
        return true;
      }
      current = await this.#o.resources.read(ref);
    }
    return current === undefined;
  }

  /** A patch guarded by the volume's resourceVersion; false when it changed since (next pass). */
  async #guarded(pv: KubeResource, patch: Record<string, unknown>): Promise<boolean> {
    try {
      return (
        (await this.#o.resources.patch(
          { kind: 'PersistentVolume', name: pv.metadata.name },
          patch,
        )) !== undefined
      );
    } catch (err) {
      if (isSluiceError(err) && err.code === 'SLUICE_KUBE_CONFLICT') return false;
      throw err;
    }
  }
}

function bound(pv: KubeResource): boolean {
  return (pv['status'] as { phase?: string } | undefined)?.phase === 'Bound';
}

function retiring(pv: KubeResource): boolean {
  return pv.metadata.annotations?.[VOLUME_ANNOTATIONS.retiring] !== undefined;
}

function inUse(pv: KubeResource): boolean {
  return (
    bound(pv) ||
    pv.metadata.annotations?.[VOLUME_ANNOTATIONS.usedBy] !== undefined ||
    retiring(pv) ||
    pv.metadata.deletionTimestamp !== undefined
  );
}

function lastUsed(pv: KubeResource): number {
  return Date.parse(pv.metadata.annotations?.[VOLUME_ANNOTATIONS.lastUsed] ?? '') || 0;
}

function percent(fraction: number): string {
  return `${Math.round(fraction * 100)} %`;
}
