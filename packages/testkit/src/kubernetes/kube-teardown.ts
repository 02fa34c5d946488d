/**
 * Tears a test cluster down from its record and checks that nothing is left: pod containers
 * are killed through containerd, every component is stopped by PID (kubelet first, etcd last),
 * stray shims and pod processes are killed, mounts under the cluster directory are unmounted
 * (kubelet and containerd leave them; rm would fail on them), then the bridge, the iptables
 * rule, the pods' cgroup, the kubelet's pod log directories and the cluster directory go.
 * @module
 */
import { mkdir, readdir, readlink, rm, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError } from '@sluice/errors';
import { runCommand } from '../run-command.js';
import { processAlive, sleep } from '@sluice/process';
import { saveRecord } from './cluster-record.js';
import type { ClusterRecord } from './cluster-record.js';
import { stopPid } from './component-process.js';
import { KUBE_TEARDOWN_FAILED } from './kube-errors.js';
import { cgroupPids, existingCgroupDirs, removeCgroup } from './node-cgroups.js';
import { cleanupKubeProxy, kubeProxyChains } from './kube-proxy-rules.js';
import { deleteBridge, forwardRuleExists, linkExists, removeForwardRule } from './node-network.js';
import { changedSysctls, restoreSysctls } from './node-sysctls.js';
import { mountsUnder, processesMentioning, unixSocketPaths, unmountUnder } from './proc-scan.js';

export const POD_LOG_DIR = '/var/log/pods';
export const CONTAINER_LOG_DIR = '/var/log/containers';
/** Where containerd's shims put their sockets, whatever containerd's own state directory. */
export const SHIM_SOCKET_DIR = '/run/containerd/s';

export interface TeardownOptions {
  /** Keep the component logs (after a failed start, whose error names them). */
  keepLogs?: boolean;
}

export async function teardownCluster(
  record: ClusterRecord,
  options: TeardownOptions = {},
): Promise<void> {
  const podUids = await readdir(join(record.dir, 'kubelet', 'pods')).catch(() => [] as string[]);
  record.podUids = [...new Set([...(record.podUids ?? []), ...podUids])];
  await stopComponent(record, 'kubelet');
  await removeContainers(record);
  for (const { name } of [...record.processes].reverse()) await stopComponent(record, name);
  if (record.kubeProxy !== undefined) await cleanupKubeProxy(record.kubeProxy);
  if (record.sysctls !== undefined) await restoreSysctls(record.sysctls);
  await killStragglers(record);
  await unmountUnder(record.dir);
  if (record.bridge !== undefined) await deleteBridge(record.bridge);
  if (record.forwardRule !== undefined) await removeForwardRule(record.forwardRule);
  if (record.cgroupRoot !== undefined) await removeCgroup(record.cgroupRoot);
  await removePodLogs(record.podUids);
  for (const dir of record.createdLogDirs ?? []) await rmdir(dir).catch(() => undefined);
  await rm(record.dir, { recursive: true, force: true });
  if (options.keepLogs !== true) await rm(record.logsDir, { recursive: true, force: true });
  const left = await findLeftovers(record, options);
  if (left.length > 0) {
    // Keep the record so that the next start, once this process is gone, tries again.
    await mkdir(record.dir, { recursive: true });
    await saveRecord(record);
    throw new InternalError(
      KUBE_TEARDOWN_FAILED,
      `Test cluster ${record.id} left ${left.join('; ')}`,
      {
        details: { left, dir: record.dir },
        hint: 'remove them by hand; the next cluster start also retries this cleanup',
      },
    );
  }
}

/** Everything of the cluster still on the machine, described for people; empty when clean. */
export async function findLeftovers(
  record: ClusterRecord,
  options: TeardownOptions = {},
): Promise<string[]> {
  const left: string[] = [];
  for (const { name, pid } of record.processes)
    if (processAlive(pid)) left.push(`process ${name} (PID ${pid})`);
  for (const pid of await processesMentioning(`${record.dir}/`))
    left.push(`process ${pid} naming ${record.dir}`);
  if (record.cgroupRoot !== undefined) {
    for (const pid of await cgroupPids(record.cgroupRoot))
      left.push(`process ${pid} in cgroup ${record.cgroupRoot}`);
  }
  for (const point of await mountsUnder(record.dir)) left.push(`mount ${point}`);
  for (const key of await changedSysctls(record.sysctls ?? {}))
    left.push(`sysctl ${key.replaceAll('/', '.')} changed`);
  for (const rule of await kubeletIptablesRules(record)) left.push(`iptables: ${rule}`);
  if (record.kubeProxy !== undefined)
    for (const chain of await kubeProxyChains()) left.push(`iptables (kube-proxy): ${chain}`);
  if (record.bridge !== undefined && (await linkExists(record.bridge)))
    left.push(`bridge ${record.bridge}`);
  if (record.forwardRule !== undefined && (await forwardRuleExists(record.forwardRule))) {
    left.push(`iptables rule FORWARD ${record.forwardRule.join(' ')}`);
  }
  if (record.cgroupRoot !== undefined) {
    for (const dir of await existingCgroupDirs(record.cgroupRoot)) left.push(`cgroup ${dir}`);
  }
  for (const name of await podLogDirs(record.podUids ?? []))
    left.push(`pod log directory ${join(POD_LOG_DIR, name)}`);
  const dirs = options.keepLogs === true ? [record.dir] : [record.dir, record.logsDir];
  for (const dir of dirs)
    if ((await readdir(dir).catch(() => undefined)) !== undefined) left.push(`directory ${dir}`);
  return left;
}

/**
 * Stops the named component by its recorded PID, but only while that PID is still the
 * component: every one is started with a path under the cluster's directory, and a PID of a
 * cluster whose owner died long ago may since belong to something else.
 */
async function stopComponent(record: ClusterRecord, name: string): Promise<void> {
  const ours = new Set(await processesMentioning(`${record.dir}/`));
  for (const entry of record.processes) {
    if (entry.name === name && ours.has(entry.pid)) await stopPid(entry.pid);
  }
}

/** Kills and deletes every container through containerd, so shims exit and remove sockets. */
async function removeContainers(record: ClusterRecord): Promise<void> {
  const containerd = record.processes.find((p) => p.name === 'containerd');
  if (
    record.containerdSocket === undefined ||
    containerd === undefined ||
    !processAlive(containerd.pid)
  )
    return;
  const ctr = ['--address', record.containerdSocket, '--namespace', 'k8s.io'];
  const listed = await runCommand('ctr', [...ctr, 'tasks', 'ls', '-q'], { timeoutMs: 10_000 });
  const ids = listed.stdout.split('\n').filter((id) => id.trim() !== '');
  await Promise.all(
    ids.map((id) => runCommand('ctr', [...ctr, 'tasks', 'rm', '-f', id], { timeoutMs: 15_000 })),
  );
}

/** Shims that outlived containerd and pod processes that outlived their shims: SIGKILL. */
async function killStragglers(record: ClusterRecord): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const shims = await processesMentioning(`${record.dir}/`);
    const pods = record.cgroupRoot === undefined ? [] : await cgroupPids(record.cgroupRoot);
    if (shims.length === 0 && pods.length === 0) return;
    const sockets = (await Promise.all(shims.map((pid) => unixSocketPaths(pid)))).flat();
    for (const pid of [...shims, ...pods]) signalKill(pid);
    await sleep(200);
    for (const path of sockets.filter((p) => p.startsWith(`${SHIM_SOCKET_DIR}/`))) {
      await unlink(path).catch(() => undefined);
    }
  }
  if (record.shimSocketDirExisted === false) await rmdir(SHIM_SOCKET_DIR).catch(() => undefined);
}

function signalKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The kubelet writes pod logs under /var/log/pods/<ns>_<pod>_<uid> whatever its root dir. */
async function removePodLogs(podUids: readonly string[]): Promise<void> {
  if (podUids.length === 0) return;
  const ours = await podLogDirs(podUids);
  for (const name of ours) await rm(join(POD_LOG_DIR, name), { recursive: true, force: true });
  for (const link of await readdir(CONTAINER_LOG_DIR).catch(() => [] as string[])) {
    const target = await readlink(join(CONTAINER_LOG_DIR, link)).catch(() => '');
    if (ours.some((name) => target.startsWith(join(POD_LOG_DIR, name)))) {
      await unlink(join(CONTAINER_LOG_DIR, link)).catch(() => undefined);
    }
  }
}

async function podLogDirs(podUids: readonly string[]): Promise<string[]> {
  if (podUids.length === 0) return [];
  const dirs = await readdir(POD_LOG_DIR).catch(() => [] as string[]);
  return dirs.filter((name) => podUids.some((uid) => name.endsWith(`_${uid}`)));
}

/**
 * iptables rules that name the cluster's bridge, or the chains a kubelet makes when it manages
 * iptables (`makeIPTablesUtilChains`, off for test nodes): both would outlive the cluster.
 */
async function kubeletIptablesRules(record: ClusterRecord): Promise<string[]> {
  if (record.bridge === undefined) return [];
  const rules: string[] = [];
  for (const table of ['filter', 'nat', 'mangle']) {
    const listed = await runCommand('iptables', ['-w', '-t', table, '-S']);
    for (const line of listed.stdout.split('\n')) {
      if (
        line.includes(record.bridge) ||
        /^-N KUBE-(KUBELET-CANARY|MARK-DROP|FIREWALL)$/.test(line)
      ) {
        rules.push(`${table}: ${line}`);
      }
    }
  }
  return rules;
}
