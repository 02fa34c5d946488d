/**
 * What the local runtime tells the control plane when a build's engine process ends on its own
 * before it reported the build's end (killed, crashed at start, out of memory): the local
 * runtime's counterpart of a failed pod (pod-monitor.ts), sent through the same route, so the
 * build ends `error` at once instead of at a workflow limit. The reason names the signal
 * (`EngineKilled`) or exit code (`EngineExited`); the message carries the last lines the engine
 * printed to its output file, with the build's secrets masked.
 * @module
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { InfrastructureErrorReport } from '@sluice/protocol';
import type { EngineExit } from './engine-processes.js';

/** Lines of the engine's output the message carries, at most. */
const TAIL_LINES = 20;
/** Bytes read off the end of the output file for them. */
const TAIL_BYTES = 16_384;
/** The route's limit on `message`. */
const MESSAGE_MAX = 4096;

/**
 * An exit that may have left the build's containers behind: ended by a signal or a non-zero
 * code. Every exit the agent did not ask for is reported (local-backend.ts); after an exit 0
 * the control plane has the build's end and ignores it.
 */
export function abnormalExit(exit: EngineExit): boolean {
  return exit.signal !== null || (exit.exitCode !== null && exit.exitCode !== 0);
}

/** The report for an engine that ended, its output file's last lines with `secrets` masked. */
export function engineExitReport(
  exit: EngineExit,
  logPath: string,
  secrets: readonly string[],
): InfrastructureErrorReport {
  const how =
    exit.signal !== null ? `was killed by ${exit.signal}` : `exited with code ${exit.exitCode}`;
  const head = `The engine process ${exit.pid} ${how} before its build finished`;
  const tail = mask(lastLines(logPath), secrets);
  const message = tail === '' ? head : `${head}; its last lines:\n${tail}`;
  return {
    pod: `engine process ${exit.pid}`,
    reason: exit.signal !== null ? 'EngineKilled' : 'EngineExited',
    message:
      message.length <= MESSAGE_MAX ? message : `${head}; …${message.slice(-(MESSAGE_MAX - 200))}`,
  };
}

/** The last `TAIL_LINES` non-empty lines of the file, or '' when it cannot be read. */
function lastLines(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const lines = buffer.toString('utf8').split('\n');
    // A partial first line when the read started mid-file.
    if (length < size) lines.shift();
    return lines
      .filter((line) => line.trim() !== '')
      .slice(-TAIL_LINES)
      .join('\n');
  } finally {
    closeSync(fd);
  }
}

function mask(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('****');
  return out;
}
