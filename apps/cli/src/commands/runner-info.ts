/**
 * `sluice runner info`: the account's runners at a glance. Every runtime environment with the
 * agents that serve it, whether each is online, its version and its health as the agent last
 * reported it (each failed check with what to do; none for an agent offline, whose last report
 * is history: it says since when, or that it stopped), and the runtimes no agent serves.
 * `-o json|yaml` gives the same as data.
 * @module
 */
import type { Agent, RuntimeEnvironment, WarmPoolHealth } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { fitTable, formatAge } from '../ui/terminal.js';
import { printDocument, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

export interface RunnerInfo {
  runtime: string;
  isDefault: boolean;
  kind: string;
  agents: {
    name: string;
    online: boolean;
    healthy: boolean | null;
    version: string | null;
    lastHeartbeatAt: string | null;
    /** The runtime's warm pool as the agent last counted it; null without one. */
    warmPool: WarmPoolHealth | null;
    problems: string[];
  }[];
}

export async function runnerInfo(
  term: Terminal,
  options: ServerOptions & { output: OutputFormat; columns: number },
): Promise<number> {
  const client = serverClient(options);
  const [{ items: runtimes }, { items: agents }] = await Promise.all([
    client.call('listRuntimeEnvironments'),
    client.call('listAgents'),
  ]);
  const info = runtimes.map((re) => describeRuntime(re, agents));
  if (options.output === 'json' || options.output === 'yaml') {
    printDocument(term, { kind: 'List', items: info }, options.output);
    return 0;
  }
  const rows = [['RUNTIME', 'KIND', 'AGENT', 'ONLINE', 'HEALTHY', 'VERSION', 'LAST SEEN', 'POOL']];
  const problems: string[] = [];
  for (const runtime of info) {
    const name = `${runtime.runtime}${runtime.isDefault ? ' (default)' : ''}`;
    if (runtime.agents.length === 0) rows.push([name, runtime.kind, '(none)', '', '', '', '', '']);
    for (const agent of runtime.agents) {
      rows.push([
        name,
        runtime.kind,
        agent.name,
        agent.online ? 'yes' : 'no',
        agent.healthy === null ? '-' : agent.healthy ? 'yes' : 'no',
        agent.version ?? '-',
        formatAge(agent.lastHeartbeatAt),
        formatPool(agent.warmPool),
      ]);
      for (const problem of agent.problems)
        problems.push(`${agent.name} on ${runtime.runtime}: ${problem}`);
    }
  }
  // The runtime and the agent are names: never cut.
  for (const [i, line] of fitTable(rows, options.columns, [0, 2]).entries())
    term.out(i === 0 ? term.paint('bold', line) : line);
  const unserved = info.filter((r) => r.agents.length === 0).map((r) => r.runtime);
  if (unserved.length > 0)
    term.err(
      term.paint(
        'yellow',
        `No agent serves ${unserved.join(', ')}: builds there wait. Add one: sluice create agent NAME --runtime ${unserved[0]}`,
      ),
    );
  for (const problem of problems) term.err(term.paint('red', problem));
  return 0;
}

export function describeRuntime(re: RuntimeEnvironment, agents: readonly Agent[]): RunnerInfo {
  return {
    runtime: re.name,
    isDefault: re.isDefault,
    kind: runtimeKind(re.spec),
    agents: agents
      .filter((a) => a.runtimes.includes(re.name))
      .map((a) => {
        const own = a.health?.runtimes?.find((r) => r.name === re.name);
        const failed = [...(a.health?.checks ?? []), ...(own?.checks ?? [])].filter((c) => !c.ok);
        // Offline, its last report is history: not a health to show as current.
        const gone = a.online
          ? []
          : [
              a.health?.stoppedAt === undefined
                ? `offline: no heartbeat since ${a.lastHeartbeatAt ?? 'it was created'}`
                : `offline: it stopped at ${a.health.stoppedAt}`,
            ];
        return {
          name: a.name,
          online: a.online,
          healthy: a.online ? (own?.healthy ?? a.health?.healthy ?? null) : null,
          version: a.version,
          lastHeartbeatAt: a.lastHeartbeatAt,
          warmPool: a.online ? (own?.warmPool ?? null) : null,
          problems: [
            ...gone,
            ...(a.online && own?.healthy === false && own.message ? [own.message] : []),
            ...(a.online ? failed.map((c) => `${c.name}: ${c.message ?? 'failed'}`) : []),
          ].filter((p, i, all) => all.indexOf(p) === i),
        };
      }),
  };
}

/** `2/3 ready, 5 hits, 1 miss`: the pool's waiting pods of its target, and its takes. */
export function formatPool(pool: WarmPoolHealth | null): string {
  if (pool === null) return '-';
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return `${pool.waiting}/${pool.target} ready, ${plural(pool.hits, 'hit', 'hits')}, ${plural(pool.misses, 'miss', 'misses')}`;
}

/** `kubernetes` or `local`, from the scheduler type or the system parent it extends. */
function runtimeKind(spec: Record<string, unknown>): string {
  const type = (spec.runtimeScheduler as { type?: string } | undefined)?.type;
  const parents = Array.isArray(spec.extends) ? (spec.extends as unknown[]).map(String) : [];
  if (type === 'KubernetesPod' || parents.some((p) => p.endsWith('/k8s'))) return 'kubernetes';
  if (type === 'LocalDocker' || parents.some((p) => p.endsWith('/local'))) return 'local';
  return type ?? '-';
}
