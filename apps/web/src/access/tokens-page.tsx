/**
 * The signed-in user's API tokens: listed (never their values), made (the value shown once,
 * here, and nowhere after) and revoked.
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { formatAgo } from '../app/format.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';

export function TokensPage() {
  const api = useApi();
  const list = usePoll((signal) => api.call('listTokens', { signal }), {
    intervalMs: 10_000,
    key: 'tokens',
  });
  const action = useAction();
  const [name, setName] = useState('');
  const [made, setMade] = useState<string | undefined>();
  const create = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await api.call('createToken', { body: { name: name.trim() } });
      setMade(created.token);
      setName('');
      list.reload();
    });
  };
  const revoke = (tokenId: string) =>
    void action.run(async () => {
      await api.call('revokeToken', { params: { tokenId } });
      list.reload();
    });
  return (
    <section>
      <h1>API tokens</h1>
      {list.error ? <ErrorNote error={list.error} /> : null}
      {action.error ? <ErrorNote error={action.error} /> : null}
      {made === undefined ? null : (
        <div className="note" role="status">
          <p>Copy the new token now: it is not shown again.</p>
          <code className="token-value">{made}</code>
          <button type="button" onClick={() => setMade(undefined)}>
            Done
          </button>
        </div>
      )}
      <Table headers={['Name', 'Prefix', 'Scope', 'Last used', 'Expires', '']} label="Tokens">
        {(list.data?.items ?? []).map((token) => (
          <tr key={token.id} data-token={token.name}>
            <td>{token.name}</td>
            <td>
              <code>{token.prefix}…</code>
            </td>
            <td>{token.scope}</td>
            <td>{token.lastUsedAt ? formatAgo(token.lastUsedAt) : 'never'}</td>
            <td>{token.revokedAt ? 'revoked' : (token.expiresAt ?? 'never')}</td>
            <td>
              {token.revokedAt ? null : (
                <button type="button" disabled={action.pending} onClick={() => revoke(token.id)}>
                  Revoke {token.name}
                </button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      <form className="inline-form" onSubmit={create} aria-label="Create a token">
        <label htmlFor="token-name">New token&apos;s name</label>
        <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} required />
        <button type="submit" className="primary" disabled={action.pending}>
          Create token
        </button>
      </form>
    </section>
  );
}
