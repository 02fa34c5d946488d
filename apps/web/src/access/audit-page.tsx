/**
 * The audit log (administrators): who did what, newest first, filtered by user, kind of event
 * and time, a page at a time (the server's cursor).
 * @module
 */
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import type { AuditEvent } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { ErrorNote } from '../app/error-note.js';
import { formatAgo } from '../app/format.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';

const PAGE = 50;

interface Filters {
  user: string;
  action: string;
  since: string;
}

export function AuditPage() {
  const api = useApi();
  const action = useAction();
  const [filters, setFilters] = useState<Filters>({ user: '', action: '', since: '' });
  const [items, setItems] = useState<AuditEvent[] | undefined>();
  const [cursor, setCursor] = useState<string | null>(null);
  const load = (more: boolean) =>
    void action.run(async () => {
      const page = await api.call('listAudit', {
        query: {
          limit: PAGE,
          user: filters.user.trim() || undefined,
          action: filters.action.trim() || undefined,
          since: filters.since === '' ? undefined : new Date(filters.since).toISOString(),
          cursor: more ? (cursor ?? undefined) : undefined,
        },
      });
      setItems((before) => (more ? [...(before ?? []), ...page.items] : page.items));
      setCursor(page.nextCursor);
    });
  useEffect(() => {
    load(false);
    // Once, at the page's first showing; later loads are the filter form's and the pager's.
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    load(false);
  };
  const field = (key: keyof Filters) => ({
    value: filters[key],
    onChange: (e: { target: { value: string } }) =>
      setFilters((f) => ({ ...f, [key]: e.target.value })),
  });
  return (
    <section>
      <h1>Audit log</h1>
      <form className="inline-form filters" onSubmit={submit} aria-label="Filter events">
        <label htmlFor="audit-user">User</label>
        <input id="audit-user" {...field('user')} />
        <label htmlFor="audit-action">Kind</label>
        <input id="audit-action" placeholder="createProject, signIn…" {...field('action')} />
        <label htmlFor="audit-since">Since</label>
        <input id="audit-since" type="datetime-local" {...field('since')} />
        <button type="submit" disabled={action.pending}>
          Show events
        </button>
      </form>
      {action.error ? <ErrorNote error={action.error} /> : null}
      {items?.length === 0 ? <p className="muted">No events.</p> : null}
      {items === undefined ? null : (
        <Table headers={['When', 'User', 'Action', 'Target', 'Outcome', 'Source']} label="Events">
          {items.map((e) => (
            <tr key={e.id}>
              <td title={e.at}>{formatAgo(e.at)}</td>
              <td>{e.actor.user ?? '(server)'}</td>
              <td>{e.action}</td>
              <td>{e.target}</td>
              <td>
                {e.outcome}
                {e.status === null ? '' : ` ${e.status}`}
              </td>
              <td>{e.source ?? '—'}</td>
            </tr>
          ))}
        </Table>
      )}
      {cursor === null ? null : (
        <button type="button" disabled={action.pending} onClick={() => load(true)}>
          Older events
        </button>
      )}
    </section>
  );
}
