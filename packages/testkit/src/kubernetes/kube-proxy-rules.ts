/**
 * kube-proxy's iptables chains as teardown sees them. `kube-proxy --cleanup` removes its service
 * chains and jumps but leaves KUBE-MARK-MASQ, KUBE-MARK-DROP and KUBE-PROXY-CANARY, so teardown
 * then removes every jump into a KUBE-* chain and every KUBE-* chain left in the nat, filter
 * and mangle tables. It runs after the process stopped, and only for a cluster that ran
 * kube-proxy: one node runs at a time on the machine (the kube tier shares one and runs a file's
 * node of its own alone, before it), and no other Kubernetes runs here.
 * The leftovers check lists any that remain.
 * @module
 */
import { runCommand } from '../run-command.js';

const TABLES = ['nat', 'filter', 'mangle'] as const;

export async function cleanupKubeProxy(binary: string): Promise<void> {
  await runCommand(binary, ['--cleanup'], { timeoutMs: 60_000 });
  for (const table of TABLES) {
    const iptables = (args: string[]) => runCommand('iptables', ['-w', '-t', table, ...args]);
    const rules = (await iptables(['-S'])).stdout.split('\n');
    for (const line of rules) {
      // A jump from a built-in or another program's chain into ours: delete that rule alone.
      const jump = /^-A (\S+) (.* -j KUBE-\S+.*)$/.exec(line);
      if (jump?.[1] !== undefined && !jump[1].startsWith('KUBE-'))
        await iptables(['-D', jump[1], ...splitRule(jump[2] ?? '')]);
    }
    const chains = rules.flatMap((line) => /^-N (KUBE-\S+)$/.exec(line)?.[1] ?? []);
    for (const chain of chains) await iptables(['-F', chain]);
    for (const chain of chains) await iptables(['-X', chain]);
  }
}

/** A rule as iptables -S prints it, back into arguments (quoted comments kept whole). */
function splitRule(rule: string): string[] {
  return [...rule.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

/** KUBE-* chains still in the nat, filter and mangle tables. */
export async function kubeProxyChains(): Promise<string[]> {
  const left: string[] = [];
  for (const table of TABLES) {
    const listed = await runCommand('iptables', ['-w', '-t', table, '-S']);
    for (const line of listed.stdout.split('\n'))
      if (line.startsWith('-N KUBE-')) left.push(`${table}: ${line}`);
  }
  return left;
}
