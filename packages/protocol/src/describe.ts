/**
 * Words for what the API answers, shared by the CLI and the web UI so both say the same: a size
 * in binary units, and what a delete removed or would remove.
 * @module
 */
import type { DeletedData } from './schemas/lifecycle.js';

/** `1536` → `1.5 KiB`; binary units, one decimal below 10. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/**
 * `3 builds and 1.2 MiB of logs (40 chunks)`: what a delete took or would take (pipelines named
 * when more than one); `no builds` for one pipeline that never ran; empty when nothing is counted.
 */
export function describeDeleted(data: DeletedData): string {
  const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (data.pipelines > 1) parts.push(plural(data.pipelines, 'pipeline'));
  if (data.builds > 0) parts.push(plural(data.builds, 'build'));
  if (data.logChunks > 0)
    parts.push(`${formatBytes(data.logBytes)} of logs (${plural(data.logChunks, 'chunk')})`);
  if (data.pipelines === 1 && data.builds === 0) parts.push('no builds');
  return parts.join(' and ');
}
