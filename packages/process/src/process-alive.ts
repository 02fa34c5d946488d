/**
 * Whether a process still runs, by its pid: the agent trusts a local engine's pid file only
 * while its process lives, the embedded database's lock is stale once its holder is gone, and
 * the test cluster waits for its components to end.
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';

const HAS_PROC = existsSync('/proc/self/stat');

/**
 * Alive and not a zombie: a killed process stays a zombie until its parent reaps it, and has
 * stopped running all the same. Without /proc (not Linux), whether the pid exists at all
 * (signal 0 checks without sending anything; EPERM means alive but someone else's).
 */
export function processAlive(pid: number): boolean {
  if (!HAS_PROC) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  try {
    // "pid (comm) STATE ...": comm may contain spaces, so read the state after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
