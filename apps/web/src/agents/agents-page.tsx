/**
 * Agents: online or offline, last heartbeat, version, the runtimes each serves and its reported
 * health, with every failed check named (missing permissions among them).
 * @module
 */
import type { Agent } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { formatAgo } from '../app/format.js';
import { Table } from '../app/table.js';

export function AgentsPage() {
  const api = useApi();
  const list = usePoll((signal) => api.call('listAgents', { signal }), {
    intervalMs: 5000,
    key: 'agents',
  });
  return (
    <section>
      <h1>Agents</h1>
      {list.error ? <ErrorNote error={list.error} /> : null}
      {list.data?.items.length === 0 ? <p className="muted">No agents.</p> : null}
      <Table headers={['Name', 'State', 'Last heartbeat', 'Version', 'Runtimes', 'Health']}>
        {(list.data?.items ?? []).map((agent) => (
          <tr key={agent.id}>
            <td>{agent.name}</td>
            <td>
              <span className={`badge status-${agent.online ? 'online' : 'offline'}`}>
                {agent.online ? 'online' : 'offline'}
              </span>
            </td>
            <td>{formatAgo(agent.lastHeartbeatAt)}</td>
            <td>{agent.version ?? '—'}</td>
            <td>{agent.runtimes.join(', ') || '—'}</td>
            <td>
              <Health health={agent.health} />
            </td>
          </tr>
        ))}
      </Table>
    </section>
  );
}

function Health({ health }: { health: Agent['health'] }) {
  if (!health) return <span className="muted">not reported</span>;
  const failed = [
    ...(health.checks ?? []),
    ...(health.runtimes ?? []).flatMap((r) =>
      (r.checks ?? []).map((c) => ({ ...c, name: `${r.name}: ${c.name}` })),
    ),
  ].filter((c) => !c.ok);
  return (
    <div>
      <span className={`badge status-${health.healthy ? 'success' : 'failure'}`}>
        {health.healthy ? 'healthy' : 'unhealthy'}
      </span>
      {health.message ? <div className="small">{health.message}</div> : null}
      {failed.length > 0 ? (
        <ul className="issues">
          {failed.map((c) => (
            <li key={c.name}>
              {c.name}
              {c.message ? `: ${c.message}` : ''}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
