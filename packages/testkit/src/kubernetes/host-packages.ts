/**
 * The Debian packages a test cluster runs on besides the built Kubernetes binaries: etcd for
 * the control plane; containerd, runc, the CNI plugins, iptables and iproute2 for a node.
 * Missing ones are installed with apt-get (the tests run as root); a failure names the step.
 * @module
 */
import { existsSync } from 'node:fs';
import { aptInstall } from '../apt-install.js';
import { readTestkitEnv } from '../config.js';
import { findExecutable, SYSTEM_BIN_DIRS } from '../run-command.js';
import { KUBE_UNAVAILABLE, stepFailed } from './kube-errors.js';

/** A program (or a file, for CNI plugins) and the package that provides it. */
export interface HostRequirement {
  program: string;
  pkg: string;
}

export const CONTROL_PLANE_PACKAGES: readonly HostRequirement[] = [
  { program: 'etcd', pkg: 'etcd-server' },
];

export const NODE_PACKAGES: readonly HostRequirement[] = [
  { program: 'containerd', pkg: 'containerd' },
  { program: 'ctr', pkg: 'containerd' },
  { program: 'runc', pkg: 'runc' },
  { program: '/usr/lib/cni/bridge', pkg: 'containernetworking-plugins' },
  { program: '/usr/lib/cni/host-local', pkg: 'containernetworking-plugins' },
  { program: '/usr/lib/cni/loopback', pkg: 'containernetworking-plugins' },
  { program: 'iptables', pkg: 'iptables' },
  { program: 'ip', pkg: 'iproute2' },
];

/** Installs whatever is missing; returns each program's absolute path by name. */
export async function ensureHostPackages(
  requirements: readonly HostRequirement[],
  log: (line: string) => void,
): Promise<Map<string, string>> {
  const missing = requirements.filter((req) => locate(req.program) === undefined);
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((req) => req.pkg))];
    const result = await aptInstall(packages, { log });
    if (!result.ok) {
      throw stepFailed(KUBE_UNAVAILABLE, 'Preparing the machine for a test cluster', result.step, {
        output: result.output,
        hint: `apt-get install -y ${packages.join(' ')}`,
      });
    }
  }
  const found = new Map<string, string>();
  for (const req of requirements) {
    const path = locate(req.program);
    if (path === undefined) {
      throw stepFailed(
        KUBE_UNAVAILABLE,
        'Preparing the machine for a test cluster',
        `find ${req.program}`,
        {
          hint: `apt-get install --reinstall -y ${req.pkg}`,
        },
      );
    }
    found.set(req.program, path);
  }
  return found;
}

function locate(program: string): string | undefined {
  if (program.startsWith('/')) return existsSync(program) ? program : undefined;
  return findExecutable(program, [...readTestkitEnv().path, ...SYSTEM_BIN_DIRS]);
}
