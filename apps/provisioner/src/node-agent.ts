/**
 * The node agent of the volume provisioner: one per node (a DaemonSet), with the volumes'
 * parent directory mounted. Each pass it
 *
 * 1. removes the directories of volumes whose PersistentVolume is gone (retired here, expired by
 *    the provisioner's retention, or deleted by hand), and nothing else: only `sluice-vol-*`
 *    directories, and only those listed before the volumes were (a volume made between the two
 *    reads is in the second);
 * 2. measures the parent directory's filesystem (space and inodes, `statfs`), and above either
 *    threshold retires one volume of this node that no claim uses — the least recently used —
 *    then measures again on the next pass, so no more go than needed.
 *
 * 3. reports each volume of this node (size used, builds that had it, last use, in use) for
 *    `/metrics`; sizes are walked (as `du` counts: allocated blocks) at most every
 *    `sizeIntervalMs`, so a large cache costs one walk per interval, never per pass.
 *
 * Retiring is first a patch marking the volume `sluice.io/retiring`, guarded by its
 * resourceVersion (a volume the provisioner promised to a claim since it was read has changed,
 * and is left alone), then the PersistentVolume's deletion and its directory's. A volume in use
 * (bound, or promised: `sluice.io/used-by` set) is never retired.
 * @module
 */
import { lstat, readdir, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { isSluiceError } from '@sluice/errors';
import type { KubeResource, KubeResources } from '@sluice/kube';
import type { Logger } from '@sluice/log';
import { sleep } from '@sluice/process';
import {
  labelValue,
  PROVISIONER_LABEL,
  retirePatch,
  VOLUME_ANNOTATIONS,
} from './volume-objects.js';

export interface NodeAgentOptions {
  resources: KubeResources;
  log: Logger;
  /** This node's name: the volumes it looks after carry it in `sluice.io/node`. */
  nodeName: string;
  provisionerName: string;
  volumeParentDir: string;
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

export interface DiskUsage {
  space: number;
  inodes: number;
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

  constructor(options: NodeAgentOptions) {
    this.#o = {
      diskThreshold: 0.8,
      inodeThreshold: 0.8,
      intervalMs: 60_000,
      sizeIntervalMs: 600_000,
      clock: Date.now,
      ...options,
    };
  }

  /** Passes until the signal aborts; each report (or failure) also goes to `watch`. */
  async run(
    signal: AbortSignal,
    watch: { passed?(report: NodeAgentReport): void; failed?(): void } = {},
  ): Promise<void> {
    while (!signal.aborted) {
      try {
        watch.passed?.(await this.pass());
      } catch (err) {
        watch.failed?.();
        this.#o.log.warn('volume node agent pass failed', { error: String(err) });
      }
      await sleep(this.#o.intervalMs, signal);
    }
  }

  async pass(): Promise<NodeAgentReport> {
    const { resources, volumeParentDir } = this.#o;
    // Directories first: a volume made after this read is in the list below.
    const dirs = (await readdir(volumeParentDir)).filter((name) => VOLUME_DIR.test(name));
    const volumes = await resources.list({
      kind: 'PersistentVolume',
      labelSelector: `${PROVISIONER_LABEL}=${labelValue(this.#o.provisionerName)}`,
    });
    const names = new Set(volumes.map((pv) => pv.metadata.name));
    const removed: string[] = [];
    for (const dir of dirs.filter((d) => !names.has(d))) {
      await rm(join(volumeParentDir, dir), { recursive: true, force: true });
      removed.push(dir);
      this.#o.log.info('volume directory removed: its volume is gone', { dir });
    }
    // A retirement cut short (the pod restarted between the mark and the deletion) is finished.
    for (const pv of volumes.filter((v) => this.#mine(v) && retiring(v) && !bound(v)))
      await this.#remove(pv.metadata.name, 'finishing its retirement');
    const usage = await diskUsage(volumeParentDir);
    const full = usage.space > this.#o.diskThreshold || usage.inodes > this.#o.inodeThreshold;
    const retired = full ? await this.#retireOne(volumes, usage) : undefined;
    const gone = new Set([...removed, ...(retired === undefined ? [] : [retired])]);
    const kept = volumes.filter((pv) => this.#mine(pv) && !gone.has(pv.metadata.name));
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
      .filter((pv) => this.#mine(pv) && !inUse(pv))
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
      await this.#remove(name, reason);
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
    const path = (pv['spec'] as { hostPath?: { path?: string } } | undefined)?.hostPath?.path;
    return (
      pv.metadata.annotations?.[VOLUME_ANNOTATIONS.node] === this.#o.nodeName &&
      path === join(this.#o.volumeParentDir, pv.metadata.name)
    );
  }

  async #remove(name: string, reason: string): Promise<void> {
    await this.#o.resources.delete({ kind: 'PersistentVolume', name });
    await rm(join(this.#o.volumeParentDir, name), { recursive: true, force: true });
    this.#o.log.info('volume retired', { volume: name, reason });
  }
}

/** Space and inodes in use on the filesystem of `path`, as fractions (df's Use% and IUse%). */
export async function diskUsage(path: string): Promise<DiskUsage> {
  const s = await statfs(path);
  // As df counts: used over what users may have (blocks reserved for root are neither).
  const used = s.blocks - s.bfree;
  return {
    space: used + s.bavail === 0 ? 0 : used / (used + s.bavail),
    inodes: s.files === 0 ? 0 : (s.files - s.ffree) / s.files,
  };
}

/**
 * The bytes a directory's files take on disk (allocated blocks, as `du` counts), links not
 * followed; undefined when the directory does not exist (yet: the kubelet makes it on first
 * mount). Files that vanish during the walk are skipped.
 */
export async function directoryBytes(path: string): Promise<number | undefined> {
  let total = 0;
  const pending = [path];
  let first = true;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (first && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      continue;
    }
    first = false;
    for (const entry of entries) {
      const child = join(dir, entry.name);
      if (entry.isDirectory()) pending.push(child);
      const stats = await lstat(child).catch(() => undefined);
      if (stats !== undefined) total += stats.blocks * 512;
    }
  }
  return total;
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
