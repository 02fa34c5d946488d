/**
 * Progress lines for the long Kubernetes build: the Go compile prints nothing for minutes, so a
 * heartbeat reports the elapsed time, how far the Go build cache has grown against the size a
 * full build reaches, and which binaries exist yet.
 * @module
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Size of the Go build cache after a full build of the four binaries (measured: go 1.19.8). */
export const EXPECTED_GO_CACHE_BYTES = 1_600_000_000;

export interface ProgressFacts {
  elapsedMs: number;
  goCacheBytes: number;
  binariesDone: number;
  binariesTotal: number;
  logPath: string;
}

/** One human line, e.g. "kubernetes build: 4m30s, go cache 41% (1.0 GB), 0/4 binaries (log: …)". */
export function describeProgress(facts: ProgressFacts): string {
  const percent = Math.min(99, Math.floor((facts.goCacheBytes / EXPECTED_GO_CACHE_BYTES) * 100));
  const gb = (facts.goCacheBytes / 1e9).toFixed(1);
  return (
    `kubernetes build: ${formatDuration(facts.elapsedMs)}, go cache about ${percent}% (${gb} GB), ` +
    `${facts.binariesDone}/${facts.binariesTotal} binaries (log: ${facts.logPath})`
  );
}

export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes === 0 ? `${seconds}s` : `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** Total size of the files under `dir`; 0 when it does not exist yet. */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else if (entry.isFile()) total += (await stat(path).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

export interface Heartbeat {
  stop(): void;
}

/** Calls `report()` every `intervalMs` until stopped; never lets a report failure escape. */
export function startHeartbeat(report: () => Promise<void>, intervalMs: number): Heartbeat {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    report()
      .catch(() => undefined)
      .finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/**
 * make's stage headers ("+++ [1121 21:23:38] Building go targets for linux/amd64:") with the
 * indented target list that follows each, joined into one line.
 */
export function makeStageLines(emit: (line: string) => void): {
  line: (line: string) => void;
  flush: () => void;
} {
  let pending: string | undefined;
  const flush = (): void => {
    if (pending !== undefined) emit(pending);
    pending = undefined;
  };
  const line = (text: string): void => {
    if (text.startsWith('+++')) {
      flush();
      pending = text.replace(/^\+\+\+ \[[^\]]*\] /, '');
    } else if (pending !== undefined && /^\s{2,}\S/.test(text)) {
      pending += ` ${text.trim()}`;
    } else {
      flush();
    }
  };
  return { line, flush };
}
