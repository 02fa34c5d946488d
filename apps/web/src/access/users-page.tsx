/**
 * Users (administrators): the account's users with their roles, added with a role (and a
 * password for the web UI, when given), their role changed, or removed; a viewer or member is
 * refused by the server and the page shows why.
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { ROLES } from '@sluice/protocol';
import type { Role } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { formatAgo } from '../app/format.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';

export function UsersPage() {
  const api = useApi();
  const list = usePoll((signal) => api.call('listUsers', { signal }), {
    intervalMs: 10_000,
    key: 'users',
  });
  const action = useAction();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [password, setPassword] = useState('');
  const add = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      await api.call('createUser', {
        body: { name: name.trim(), role, password: password === '' ? undefined : password },
      });
      setName('');
      setPassword('');
      list.reload();
    });
  };
  const change = (user: string, body: { role?: Role; projects?: string[] | null } | null) =>
    void action.run(async () => {
      if (body === null) await api.call('deleteUser', { params: { name: user } });
      else await api.call('updateUser', { params: { name: user }, body });
      list.reload();
    });
  return (
    <section>
      <h1>Users</h1>
      {list.error ? <ErrorNote error={list.error} /> : null}
      {action.error ? <ErrorNote error={action.error} /> : null}
      <Table headers={['Name', 'Role', 'Projects', 'Password', 'Added', 'Actions']} label="Users">
        {(list.data?.items ?? []).map((user) => (
          <tr key={user.id} data-user={user.name}>
            <td>{user.name}</td>
            <td>
              <select
                aria-label={`Role of ${user.name}`}
                value={user.role}
                disabled={action.pending}
                onChange={(e) => change(user.name, { role: e.target.value as Role })}
              >
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </td>
            <td>
              {user.role === 'admin' ? (
                'all'
              ) : (
                <ProjectGrantsForm
                  user={user.name}
                  projects={user.projects}
                  disabled={action.pending}
                  onSave={(projects) => change(user.name, { projects })}
                />
              )}
            </td>
            <td>{user.hasPassword ? 'set' : '—'}</td>
            <td>{formatAgo(user.createdAt)}</td>
            <td>
              <button
                type="button"
                disabled={action.pending}
                onClick={() => change(user.name, null)}
              >
                Remove {user.name}
              </button>
            </td>
          </tr>
        ))}
      </Table>
      <form className="inline-form" onSubmit={add} aria-label="Add a user">
        <h2>Add a user</h2>
        <label htmlFor="new-user">Name</label>
        <input id="new-user" value={name} onChange={(e) => setName(e.target.value)} required />
        <label htmlFor="new-role">Role</label>
        <select id="new-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <label htmlFor="new-password">Password (optional)</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" className="primary" disabled={action.pending}>
          Add user
        </button>
      </form>
    </section>
  );
}

/**
 * A member's or viewer's project grants, edited as a comma-separated list of project names;
 * empty: every project (as `sluice patch user NAME --project` with none).
 */
function ProjectGrantsForm(props: {
  user: string;
  projects: string[] | null;
  disabled: boolean;
  onSave: (projects: string[] | null) => void;
}) {
  const [text, setText] = useState((props.projects ?? []).join(', '));
  const save = (event: FormEvent) => {
    event.preventDefault();
    const names = text
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    props.onSave(names.length === 0 ? null : names);
  };
  return (
    <form className="inline-form" onSubmit={save} aria-label={`Projects of ${props.user}`}>
      <input
        aria-label={`Projects ${props.user} may use (empty: all)`}
        placeholder="all"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button type="submit" disabled={props.disabled}>
        Save projects of {props.user}
      </button>
    </form>
  );
}
