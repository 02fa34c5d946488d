/**
 * Starts `db-child.test-support.js` and waits until it reports `ready` (or fails), so tests can
 * kill it mid-transaction or race it for a data directory lock.
 * @module
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { OpenDatabaseOptions } from './database.js';

const CHILD = fileURLToPath(new URL('./db-child.test-support.js', import.meta.url));

export interface DbChild {
  pid: number;
  /** `ready` once it holds its rows, or `failed CODE` when it could not open. */
  status: string;
  /** SIGKILL, then wait for the exit. */
  kill(): Promise<void>;
}

export async function spawnDbChild(options: OpenDatabaseOptions, rows: number): Promise<DbChild> {
  const child = spawn(process.execPath, [CHILD, JSON.stringify({ options, rows })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const status = await firstLine(child);
  return {
    pid: child.pid ?? 0,
    status,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    child.once('close', (code) => reject(new Error(`db child exited with ${code}: ${err}`)));
  });
}
