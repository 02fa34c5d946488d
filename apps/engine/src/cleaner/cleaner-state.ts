/**
 * The cleaner's bookkeeping, kept on the build's volume beside the daemon's data so it travels
 * with the volume to the next build: when the volume was created and last used, the builds that
 * used it, the last deep clean and hard prune, builds since the last clean, and per image and
 * volume the last time a container of this daemon ran from or mounted it (or, for one never seen
 * in use, the first time the cleaner saw it: an image pulled or built for a build gets its whole
 * retain period). Docker's own `Created` and `LastTagTime` are not use. Pure: parse and update.
 * @module
 */

export interface CleanerState {
  version: 1;
  /** Milliseconds since the epoch, as every time here. */
  created: number;
  lastUsed: number;
  /** The most recent builds on this volume, oldest first (at most MAX_BUILDS). */
  builds: { id: string; at: number }[];
  buildsSinceClean: number;
  lastClean?: number;
  lastPrune?: number;
  /** Image id (`sha256:…`) → last use. */
  images: Record<string, number>;
  /** Volume name → last use. */
  volumes: Record<string, number>;
}

export const MAX_BUILDS = 50;

export function emptyState(now: number): CleanerState {
  return {
    version: 1,
    created: now,
    lastUsed: now,
    builds: [],
    buildsSinceClean: 0,
    images: {},
    volumes: {},
  };
}

/**
 * The state file's text as a state; a missing, unreadable or foreign file starts afresh (the
 * worst that costs is one retain period more for what is on the volume), with the reason.
 */
export function parseState(
  text: string | undefined,
  now: number,
): { state: CleanerState; problem?: string } {
  if (text === undefined) return { state: emptyState(now) };
  try {
    const value = JSON.parse(text) as Partial<CleanerState>;
    if (value.version !== 1 || typeof value.created !== 'number')
      return { state: emptyState(now), problem: 'the bookkeeping file has an unknown format' };
    return {
      state: {
        ...emptyState(value.created),
        ...value,
        builds: Array.isArray(value.builds) ? value.builds : [],
        images: timesOf(value.images),
        volumes: timesOf(value.volumes),
      },
    };
  } catch {
    return { state: emptyState(now), problem: 'the bookkeeping file is not JSON' };
  }
}

function timesOf(value: unknown): Record<string, number> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, number] => typeof entry[1] === 'number',
    ),
  );
}

/** A build starts on the volume. */
export function recordBuild(state: CleanerState, buildId: string, now: number): CleanerState {
  return {
    ...state,
    lastUsed: now,
    builds: [...state.builds, { id: buildId, at: now }].slice(-MAX_BUILDS),
    buildsSinceClean: state.buildsSinceClean + 1,
  };
}

/** Images and volumes used at `now` (later uses win over earlier ones). */
export function recordUse(
  state: CleanerState,
  used: { images: Iterable<string>; volumes: Iterable<string> },
  now: number,
): CleanerState {
  const images = { ...state.images };
  const volumes = { ...state.volumes };
  for (const id of used.images) images[id] = Math.max(images[id] ?? 0, now);
  for (const name of used.volumes) volumes[name] = Math.max(volumes[name] ?? 0, now);
  return { ...state, lastUsed: Math.max(state.lastUsed, now), images, volumes };
}

/**
 * Entries for what the daemon holds now: one seen for the first time is dated `now`, one the
 * daemon no longer has is forgotten, so the file stays the size of the daemon's inventory.
 */
export function reconcile(
  state: CleanerState,
  present: { images: readonly string[]; volumes: readonly string[] },
  now: number,
): CleanerState {
  const keep = (times: Record<string, number>, names: readonly string[]) =>
    Object.fromEntries(names.map((name) => [name, times[name] ?? now]));
  return {
    ...state,
    images: keep(state.images, present.images),
    volumes: keep(state.volumes, present.volumes),
  };
}

export function markCleaned(
  state: CleanerState,
  now: number,
  options: { pruned: boolean },
): CleanerState {
  return {
    ...state,
    lastClean: now,
    buildsSinceClean: 0,
    ...(options.pruned ? { lastPrune: now } : {}),
  };
}
