/**
 * The cleaner's removals, one kind at a time, each reported in one system line (what went, how
 * much space): exited containers, images and volumes past their retain periods, and the hard
 * prune of every image and volume nothing uses. The daemon's own refusal (a container or a child
 * image still needs it) keeps the object and is only counted: the cleaner never forces past it.
 * @module
 */
import type { DaemonHousekeeping, DaemonImage, DaemonVolume } from '@sluice/docker';
import { formatBytes } from '@sluice/protocol';
import type { Inventory } from './clean-policy.js';

export interface SweepContext {
  daemon: DaemonHousekeeping;
  say: (line: string) => void;
}

/** Containers that have stopped (exited, dead, never started), except those `spare` names. */
export async function removeStoppedContainers(
  context: SweepContext,
  inventory: Inventory,
  spare: (labels: Record<string, string>) => boolean,
): Promise<number> {
  const stopped = inventory.containers.filter(
    (c) => ['exited', 'dead', 'created'].includes(c.state) && !spare(c.labels),
  );
  let removed = 0;
  for (const container of stopped)
    if ((await context.daemon.removeContainer(container.id)) === 'removed') removed++;
  if (removed > 0) context.say(`Cleaner: removed ${removed} stopped container(s)`);
  return removed;
}

/** Removes `images`; returns how many went. `why` ends the line: "unused for 4 h". */
export async function removeImages(
  context: SweepContext,
  images: readonly DaemonImage[],
  why: string,
): Promise<number> {
  if (images.length === 0) return 0;
  const removed: DaemonImage[] = [];
  let kept = 0;
  for (const image of images) {
    const outcome = await context.daemon.removeImage(image.id);
    if (outcome === 'removed') removed.push(image);
    else if (outcome === 'in-use') kept++;
  }
  const freed = removed.reduce((sum, image) => sum + image.size, 0);
  const names = removed.map((image) => image.repoTags[0] ?? image.id.slice(7, 19));
  context.say(
    `Cleaner: removed ${removed.length} image(s) ${why}, about ${formatBytes(freed)}${names.length > 0 ? `: ${list(names)}` : ''}${kept > 0 ? ` (${kept} kept: still needed by another image or a container)` : ''}`,
  );
  return removed.length;
}

export async function removeVolumes(
  context: SweepContext,
  volumes: readonly DaemonVolume[],
  why: string,
): Promise<number> {
  if (volumes.length === 0) return 0;
  const removed: string[] = [];
  for (const volume of volumes)
    if ((await context.daemon.removeVolume(volume.name)) === 'removed') removed.push(volume.name);
  context.say(
    `Cleaner: removed ${removed.length} volume(s) ${why}${removed.length > 0 ? `: ${list(removed)}` : ''}`,
  );
  return removed.length;
}

/** At most five names, then a count. */
function list(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}
