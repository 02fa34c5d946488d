// CPU time of each test file's processes, for the runner's "where the time went": the suite is
// CPU-bound on two cores, so a file's wall time says little (it stretches with its neighbours)
// and its CPU time is what it costs the run. Each file's node process is moved, as it starts,
// into a cgroup (v1 cpuacct) of its own, which every process it starts then inherits: servers,
// agents, engines, CLIs. Not counted there: Docker's containers (in Docker's cgroups) and the
// shared PostgreSQL server and clusters (the runner's children). Where cgroups cannot be written
// (not root, or cgroup v2 only), files have no CPU time and the runner says nothing of it.
import { mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CPUACCT = '/sys/fs/cgroup/cpuacct';
const GROUP = join(CPUACCT, `sluice-tests-${process.pid}`);
/** How long to look for a file's process: node:test spawns it at once. */
const FIND_FOR_MS = 10_000;
const POLL_MS = 10;

let usable;
let counter = 0;

/** Whether per-file CPU can be measured here; creates the run's group the first time. */
function cgroupsUsable() {
  if (usable !== undefined) return usable;
  try {
    mkdirSync(GROUP, { recursive: true });
    usable = true;
  } catch {
    usable = false;
  }
  return usable;
}

/** The children a thread of `pid` started (Linux 3.5+, CONFIG_PROC_CHILDREN). */
function childPids(pid, task) {
  try {
    return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The children of this process's main thread, where node:test spawns each file. */
const children = () => childPids(process.pid, process.pid);

function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** The CPU seconds a cgroup's processes have used, or undefined. */
function usageSeconds(dir) {
  try {
    return Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8')) / 1e9;
  } catch {
    return undefined;
  }
}

/**
 * Starts measuring the CPU of the process that is about to run `file` (call it just before
 * node:test's run()). `stop()` resolves with its CPU seconds and how many of its processes were
 * still running when it ended (a test that leaves processes behind), or undefined when cgroups
 * cannot be used or the process was not found.
 */
export function trackFileCpu(file) {
  if (!cgroupsUsable()) return { stop: async () => undefined };
  const dir = join(GROUP, String(++counter));
  try {
    mkdirSync(dir);
  } catch {
    return { stop: async () => undefined };
  }
  const before = new Set(children());
  let found = false;
  const deadline = performance.now() + FIND_FOR_MS;
  const timer = setInterval(() => {
    for (const pid of children()) {
      if (before.has(pid)) continue;
      if (!commandLine(pid).includes(file)) {
        before.add(pid);
        continue;
      }
      try {
        writeFileSync(join(dir, 'cgroup.procs'), String(pid));
        found = true;
      } catch {
        /* it ended already */
      }
      clearInterval(timer);
      return;
    }
    if (performance.now() > deadline) clearInterval(timer);
  }, POLL_MS);
  return {
    async stop() {
      clearInterval(timer);
      const seconds = found ? usageSeconds(dir) : undefined;
      let left = 0;
      try {
        left = readFileSync(join(dir, 'cgroup.procs'), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean).length;
        rmdirSync(dir);
      } catch {
        // A group with processes in it stays: they are counted in `left`.
      }
      return seconds === undefined ? undefined : { seconds, left };
    },
  };
}

/** CPU seconds of Docker's containers so far (cgroup v1 cpuacct), or undefined. */
export function dockerContainersCpu() {
  return usageSeconds(join(CPUACCT, 'docker'));
}

/** Removes the run's group (what is left of it: groups of files whose processes outlived them). */
export function removeCpuGroups() {
  if (!usable) return;
  try {
    for (const name of readdirSync(GROUP)) {
      if (/^\d+$/.test(name)) rmdirSync(join(GROUP, name));
    }
    rmdirSync(GROUP);
  } catch {
    // Still in use by a leftover process: an empty cgroup directory costs nothing.
  }
}

/** utime + stime + cutime + cstime of a process, in seconds (clock ticks of 1/100 s). */
function processSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    return 0;
  }
}

/** The children of every thread of `pid`. */
function childrenOf(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => childPids(pid, task));
  } catch {
    return [];
  }
}

/** A process and its live descendants: their CPU, with what each has reaped of its own. */
function treeSeconds(pid) {
  return processSeconds(pid) + childrenOf(pid).reduce((sum, child) => sum + treeSeconds(child), 0);
}

/**
 * The CPU seconds of this process's live children and their descendants, and of the processes
 * `others` (daemons it started: PostgreSQL's postmaster), by their names (kube-apiserver, etcd,
 * postgres, …). Processes that ended are not there (their time is in this
 * process's own reaped total).
 */
export function childrenCpu(others = []) {
  return cpuByName([...childrenOf(process.pid), ...others]);
}

/** The CPU seconds of the processes `pids` and their live descendants, by name. */
function cpuByName(pids) {
  const byName = new Map();
  for (const pid of pids) {
    let name;
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    byName.set(name, (byName.get(name) ?? 0) + treeSeconds(pid));
  }
  return byName;
}

/**
 * What a test cluster (packages/testkit's record at `<dir>/cluster.json`) has used so far: its
 * components by name (kube-apiserver, etcd, …) and, for a node, its pods (the kubelet's cgroup
 * root: the engines and Docker daemons of the builds run there). Read just before it stops.
 */
export function clusterCpu(dir) {
  let record;
  try {
    record = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8'));
  } catch {
    return { components: new Map(), pods: undefined };
  }
  const pods =
    record.cgroupRoot === undefined ? undefined : usageSeconds(join(CPUACCT, record.cgroupRoot));
  return { components: cpuByName(record.processes.map((p) => p.pid)), pods };
}

/** The CPU seconds so far of the Docker daemon (its pid file) and the children it reaped. */
export function dockerdCpu() {
  try {
    return treeSeconds(Number(readFileSync('/var/run/docker.pid', 'utf8').trim()));
  } catch {
    return undefined;
  }
}
