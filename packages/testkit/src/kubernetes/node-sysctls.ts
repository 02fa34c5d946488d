/**
 * The kernel settings a kubelet rewrites at start (vm.overcommit_memory, kernel.panic, ...: its
 * "kernel tunables", which 1.20 cannot be told to leave alone short of refusing to start), and
 * the one kube-proxy must set (net.ipv4.conf.all.route_localnet). A test node saves their
 * values before the kubelet starts and puts them back on teardown.
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';

export const KUBELET_SYSCTLS = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
  'net/ipv4/conf/all/route_localnet',
] as const;

/** Current values, keyed by path under /proc/sys; unreadable ones are left out. */
export async function readSysctls(): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const key of KUBELET_SYSCTLS) {
    const value = await readFile(`/proc/sys/${key}`, 'utf8').catch(() => undefined);
    if (value !== undefined) values[key] = value.trim();
  }
  return values;
}

/** Writes the saved values back; returns the keys that still differ afterwards. */
export async function restoreSysctls(saved: Record<string, string>): Promise<string[]> {
  for (const [key, value] of Object.entries(saved)) {
    await writeFile(`/proc/sys/${key}`, value).catch(() => undefined);
  }
  return changedSysctls(saved);
}

export async function changedSysctls(saved: Record<string, string>): Promise<string[]> {
  const now = await readSysctls();
  return Object.keys(saved).filter((key) => now[key] !== saved[key]);
}
