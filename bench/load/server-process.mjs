// The server under load as a process of its own, as it is deployed: `sluice server` on a
// PostgreSQL database, its API and its /metrics on free loopback ports, its output in a file.
// Its resident memory is read from /proc/<pid>/status and its event-loop delay from the
// prom-client default metrics on /metrics (a histogram reset at each scrape).
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const SLUICE = new URL('../../apps/cli/bin/sluice.js', import.meta.url).pathname;

/** A port the kernel gave and took back at once: free for the server to take. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `sluice server` with `env` added to this process's environment and `nodeFlags` before
 * the script (for example `--cpu-prof`); resolves once /readyz answers 200.
 */
export async function startServerProcess({ env, nodeFlags = [], logFile }) {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, SLUICE, 'server'], {
    env: {
      ...process.env,
      ...env,
      SLUICE_HOST: '127.0.0.1',
      SLUICE_PORT: String(port),
      SLUICE_METRICS_PORT: String(metricsPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = createWriteStream(logFile);
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const early = await Promise.race([exited, sleep(200, undefined)]);
    if (early !== undefined)
      throw new Error(
        `sluice server exited before it was ready (${JSON.stringify(early)}): see ${logFile}`,
      );
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`sluice server not ready in 60 s: see ${logFile}`);
  }
  return {
    url,
    pid: child.pid,
    /** Resident memory now, in MiB. */
    rssMiB: () => readRssMiB(child.pid),
    /** CPU time the process has used so far (user + system), in ms. */
    cpuMs: () => readCpuMs(child.pid),
    /** The metrics text (which also resets the event-loop delay histogram). */
    scrape: () => fetch(metricsUrl).then((r) => r.text()),
    /** SIGTERM, then waits for the exit (a --cpu-prof profile is written on the way out). */
    stop: async () => {
      child.kill('SIGTERM');
      const ended = await Promise.race([exited, sleep(30_000, undefined)]);
      if (ended === undefined) child.kill('SIGKILL');
      await exited;
      out.end();
    },
  };
}

async function readRssMiB(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  return Math.round((kib / 1024) * 10) / 10;
}

export async function readCpuMs(pid) {
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS_PER_S;
}

/**
 * The CPU time of a PostgreSQL cluster's processes (the postmaster and its children: backends,
 * WAL writer...) in ms, or undefined when its data directory is not ours to read. A backend that
 * exits takes its time with it: the server's pool keeps its connections for the whole run.
 */
export async function clusterCpuMs(dataDir) {
  const postmaster = Number(
    (await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  let total = await readCpuMs(postmaster);
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === postmaster) total += await readCpuMs(entry).catch(() => 0);
  }
  return total;
}

/** USER_HZ: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_S = 100;

/** The value of one unlabelled series in Prometheus text, or undefined. */
export function metricValue(text, name) {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}
