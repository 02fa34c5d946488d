/**
 * What a test cluster has put on the machine (its PIDs, bridge, iptables rule, cgroup,
 * directory), written to `<dir>/cluster.json` before each piece is made. Teardown works from
 * this record alone, so a cluster whose test process was killed (a timeout, Ctrl-C) is cleaned
 * up by the next cluster start on the machine.
 * @module
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '@sluice/process';

export const CLUSTER_DIR_PREFIX = 'sluice-kube-';
/**
 * A cluster's directory, exactly: the prefix and six hex digits (kubernetes-cluster.ts). Anything
 * else that starts with the prefix (`sluice-kube-setup.X`, another tool's) is never swept: a
 * sweep kills every process whose command line names the directory.
 */
const CLUSTER_DIR_NAME = new RegExp(`^${CLUSTER_DIR_PREFIX}[0-9a-f]{6}$`);
const RECORD_FILE = 'cluster.json';

export interface ClusterRecord {
  id: string;
  dir: string;
  /** Component logs, beside `dir` so a failed start can keep them (`<dir>-logs`). */
  logsDir: string;
  /** The test process that owns the cluster; when it is gone, the cluster is stale. */
  ownerPid: number;
  /** Components in start order; stopped in reverse. */
  processes: { name: string; pid: number }[];
  bridge?: string;
  forwardRule?: string[];
  cgroupRoot?: string;
  containerdSocket?: string;
  /** Whether /run/containerd/s existed before this cluster's shims ran (else it is removed). */
  shimSocketDirExisted?: boolean;
  /** /var/log/pods and /var/log/containers, when this cluster's kubelet made them. */
  createdLogDirs?: string[];
  /** UIDs of the pods the kubelet ran (from its pods/ dir), to find their logs in /var/log/pods. */
  podUids?: string[];
  /** Kernel settings the kubelet rewrites, as they were before it started (node-sysctls.ts). */
  sysctls?: Record<string, string>;
  /** The kube-proxy binary, once it was started: teardown runs its `--cleanup` (iptables). */
  kubeProxy?: string;
}

export const LOGS_SUFFIX = '-logs';

export function newRecord(id: string, dir: string): ClusterRecord {
  return { id, dir, logsDir: `${dir}${LOGS_SUFFIX}`, ownerPid: process.pid, processes: [] };
}

export async function saveRecord(record: ClusterRecord): Promise<void> {
  await writeFile(join(record.dir, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}

export async function loadRecord(dir: string): Promise<ClusterRecord | undefined> {
  const text = await readFile(join(dir, RECORD_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as ClusterRecord;
  } catch {
    return undefined;
  }
}

export interface StaleCluster {
  dir: string;
  /** Undefined when the directory has no readable record (its owner died while creating it). */
  record: ClusterRecord | undefined;
}

/** Cluster directories under `stateRoot` whose owner process is gone. */
export async function findStaleClusters(stateRoot: string): Promise<StaleCluster[]> {
  const names = await readdir(stateRoot).catch(() => [] as string[]);
  const stale: StaleCluster[] = [];
  const clusters = names.filter((n) => CLUSTER_DIR_NAME.test(n));
  for (const name of clusters) {
    const dir = join(stateRoot, name);
    const record = await loadRecord(dir);
    if (record !== undefined) {
      if (!processAlive(record.ownerPid)) stale.push({ dir, record });
      continue;
    }
    // No record yet: a cluster being created right now looks the same for a moment.
    const age =
      Date.now() -
      (await stat(dir).then(
        (s) => s.mtimeMs,
        () => Date.now(),
      ));
    if (age > 5 * 60_000) stale.push({ dir, record: undefined });
  }
  return stale;
}
