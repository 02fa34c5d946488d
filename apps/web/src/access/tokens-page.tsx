/**
 * The signed-in user's API tokens: listed (never their values), made with a scope of at most
 * the user's role and an expiry (the value shown once, here, and nowhere after) and revoked.
 * @module
 */
import { useState } from 'react';
import { TOKEN_SCOPES, roleAtLeast, roleOfScope, scopeOfRole } from '@sluice/protocol';
import type { TokenScope } from '@sluice/protocol';
import type { FormEvent } from 'react';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { formatAgo } from '../app/format.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';

const DAY_S = 86_400;
/** The expiries offered, in seconds; none: the token never expires. */
const EXPIRIES: { label: string; seconds: number | undefined }[] = [
  { label: '30 days', seconds: 30 * DAY_S },
  { label: '7 days', seconds: 7 * DAY_S },
  { label: '90 days', seconds: 90 * DAY_S },
  { label: 'a year', seconds: 365 * DAY_S },
  { label: 'never', seconds: undefined },
];

export function TokensPage() {
  const api = useApi();
  const role = api.session.user.role;
  // A token carries at most its user's rights: only the scopes the role covers are offered.
  const scopes = TOKEN_SCOPES.filter((s) => roleAtLeast(role, roleOfScope(s)));
  const [scope, setScope] = useState<TokenScope>(scopeOfRole(role));
  const [expiry, setExpiry] = useState(EXPIRIES[0]?.label ?? 'never');
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
      const expiresInSeconds = EXPIRIES.find((e) => e.label === expiry)?.seconds;
      const created = await api.call('createToken', {
        body: { name: name.trim(), scope, ...(expiresInSeconds ? { expiresInSeconds } : {}) },
      });
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
      <Table
        headers={['Name', 'Prefix', 'Scope', 'Last used', 'Expires', 'Actions']}
        label="Tokens"
      >
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
        <label htmlFor="token-scope">Scope</label>
        <select
          id="token-scope"
          value={scope}
          onChange={(e) => setScope(e.target.value as TokenScope)}
        >
          {scopes.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label htmlFor="token-expiry">Expires in</label>
        <select id="token-expiry" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
          {EXPIRIES.map((e) => (
            <option key={e.label} value={e.label}>
              {e.label}
            </option>
          ))}
        </select>
        <button type="submit" className="primary" disabled={action.pending}>
          Create token
        </button>
      </form>
    </section>
  );
}
