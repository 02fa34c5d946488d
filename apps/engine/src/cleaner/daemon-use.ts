/**
 * What containers of the daemon used in a time window, from its events: the image a container
 * was created from, the volumes it mounted, and images that arrived (pulled, loaded, imported,
 * tagged, built) for the build. Step containers are removed as soon as they exit, so events are
 * the only record of a short one; the daemon keeps its recent events in memory, and the cleaner
 * reads them every few seconds. Image references are resolved to ids as they are now.
 * @module
 */
import type { DaemonEvent, DaemonHousekeeping } from '@sluice/docker';

const IMAGE_ARRIVALS = new Set(['pull', 'load', 'import', 'tag', 'build']);

/**
 * The use in the events from `since` to `until`, except the events in `seen` (windows overlap,
 * since the daemon's clock and the engine's may differ a little); `seen` becomes this window's.
 */
export async function recentUse(
  daemon: DaemonHousekeeping,
  window: { since: number; until: number; seen: Set<string> },
): Promise<{ images: Set<string>; volumes: Set<string> }> {
  const references = new Set<string>();
  const volumes = new Set<string>();
  const events = await daemon.events(window.since, window.until);
  const fresh = events.filter((e) => !window.seen.has(keyOf(e)));
  window.seen.clear();
  for (const event of events) window.seen.add(keyOf(event));
  for (const event of fresh) {
    if (event.type === 'container' && event.action === 'create') {
      const image = event.attributes.image;
      if (image !== undefined) references.add(image);
    } else if (event.type === 'volume' && event.action === 'mount') {
      volumes.add(event.id);
    } else if (event.type === 'image' && IMAGE_ARRIVALS.has(event.action)) {
      references.add(event.id);
    }
  }
  const images = new Set<string>();
  for (const reference of references) {
    const id = reference.startsWith('sha256:') ? reference : await daemon.imageId(reference);
    if (id !== undefined) images.add(id);
  }
  return { images, volumes };
}

function keyOf(event: DaemonEvent): string {
  return `${event.at} ${event.type} ${event.action} ${event.id}`;
}
