/**
 * `sluice get agents [NAME]`: the runner agents of the account, whether they are online, their
 * health (each runtime's checks) and version.
 * @module
 */
import { NotFoundError } from '@sluice/errors';
import type { Agent } from '@sluice/protocol';
import type { Terminal } from '../ui/terminal.js';
import { formatAge } from '../ui/terminal.js';
import { printDocument, printResources, serverClient } from './server-resources.js';
import type { OutputFormat, ServerOptions } from './server-resources.js';

export async function getAgents(
  term: Terminal,
  name: string | undefined,
  options: ServerOptions & { output: OutputFormat; columns: number },
): Promise<number> {
  const { items } = await serverClient(options).call('listAgents');
  const agents = name === undefined ? items : items.filter((a) => a.name === name || a.id === name);
  if (name !== undefined && agents.length === 0)
    throw new NotFoundError('SLUICE_AGENT_NOT_FOUND', `Agent "${name}" does not exist`, {
      hint: 'List the agents with: sluice get agents',
    });
  if (name !== undefined && (options.output === 'json' || options.output === 'yaml')) {
    printDocument(term, agents[0], options.output);
    return 0;
  }
  printResources<Agent>(
    term,
    agents,
    options.output,
    {
      header: ['NAME', 'RUNTIMES', 'ONLINE', 'HEALTHY', 'VERSION', 'LAST SEEN'],
      row: (a) => [
        a.name,
        a.runtimes.join(','),
        a.online ? 'yes' : 'no',
        a.health === null ? '-' : a.health.healthy ? 'yes' : 'no',
        a.version ?? '-',
        formatAge(a.lastHeartbeatAt),
      ],
      wide: {
        header: ['ID', 'MESSAGE'],
        row: (a) => [a.id, unhealthy(a)],
      },
    },
    options,
  );
  return 0;
}

/** What is wrong, from the agent's and its runtimes' failed checks. */
function unhealthy(agent: Agent): string {
  const health = agent.health;
  if (health === null) return '';
  const messages = [health.message, ...(health.runtimes ?? []).map((r) => r.message)];
  return messages.filter((m): m is string => Boolean(m)).join('; ');
}

/** `sluice create agent NAME --runtime R`: the agent's token is printed once, on stdout alone. */
export async function createAgent(
  term: Terminal,
  name: string,
  options: ServerOptions & { runtime: string[] },
): Promise<number> {
  const { agent, token } = await serverClient(options).call('createAgent', {
    body: { name, runtimes: options.runtime },
  });
  term.err(
    `agent/${agent.name} created for ${agent.runtimes.join(', ')}; its token (shown once) follows`,
  );
  term.out(token);
  return 0;
}

export async function deleteAgent(
  term: Terminal,
  name: string,
  options: ServerOptions,
): Promise<number> {
  const client = serverClient(options);
  const { items } = await client.call('listAgents');
  const agent = items.find((a) => a.name === name || a.id === name);
  if (agent === undefined)
    throw new NotFoundError('SLUICE_AGENT_NOT_FOUND', `Agent "${name}" does not exist`, {
      hint: 'List the agents with: sluice get agents',
    });
  await client.call('deleteAgent', { params: { agentId: agent.id } });
  term.out(`agent/${agent.name} deleted (its token no longer works)`);
  return 0;
}
