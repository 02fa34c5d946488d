/**
 * A pipeline's triggers: git webhooks (the URL to give the git host and a secret made in the
 * browser, shown once right after it is created and never again: the server keeps it encrypted
 * and never returns it) and cron schedules (UTC, with the next run).
 * @module
 */
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { Trigger } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';

type Provider = 'github' | 'gitlab' | 'gitea';

export function Triggers({ pipelineId }: { pipelineId: string }) {
  const api = useApi();
  const list = usePoll((signal) => api.call('listTriggers', { params: { pipelineId }, signal }), {
    intervalMs: 10_000,
    key: `triggers:${pipelineId}`,
  });
  const action = useAction();
  const [created, setCreated] = useState<{ trigger: Trigger; secret: string } | undefined>();
  const remove = (triggerId: string) =>
    action.run(async () => {
      await api.call('deleteTrigger', { params: { triggerId } });
      list.reload();
    });
  return (
    <section aria-label="Triggers">
      <Table headers={['Kind', 'When', 'Webhook URL', 'Actions']}>
        {(list.data?.items ?? []).map((t) => (
          <tr key={t.id} data-trigger={t.id}>
            <td>{t.kind === 'git' ? `git (${t.provider})` : 'cron'}</td>
            <td>
              {t.kind === 'git'
                ? `${t.events.join(', ')}${t.branchFilter ? ` on ${t.branchFilter}` : ''}`
                : `${t.cron} UTC · next ${t.nextRunAt ? new Date(t.nextRunAt).toLocaleString() : '—'}`}
            </td>
            <td className="mono">{t.webhookUrl ?? '—'}</td>
            <td>
              <button type="button" onClick={() => void remove(t.id)}>
                Delete
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {created ? (
        <div className="error-note" role="status" style={{ background: '#fff8c5' }}>
          Give the git host this webhook URL and secret. The secret is shown only now.
          <div className="mono">URL: {absolute(created.trigger.webhookUrl ?? '')}</div>
          <div className="mono">Secret: {created.secret}</div>
        </div>
      ) : null}
      <TriggerForm
        pipelineId={pipelineId}
        onCreated={(trigger, secret) => {
          setCreated(secret ? { trigger, secret } : undefined);
          list.reload();
        }}
      />
      {action.error ? <ErrorNote error={action.error} /> : null}
    </section>
  );
}

interface TriggerFormProps {
  pipelineId: string;
  onCreated: (trigger: Trigger, secret: string | undefined) => void;
}

function TriggerForm({ pipelineId, onCreated }: TriggerFormProps) {
  const api = useApi();
  const action = useAction();
  const [kind, setKind] = useState<'git' | 'cron'>('git');
  const [provider, setProvider] = useState<Provider>('github');
  const [branchFilter, setBranchFilter] = useState('');
  const [cron, setCron] = useState('0 3 * * *');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    return action.run(async () => {
      if (kind === 'cron') {
        const body = { kind, cron } as const;
        onCreated(await api.call('createTrigger', { params: { pipelineId }, body }), undefined);
        return;
      }
      const secret = randomSecret();
      const body = {
        kind,
        provider,
        events: ['push' as const],
        branchFilter: branchFilter.trim() || undefined,
        secret,
      };
      onCreated(await api.call('createTrigger', { params: { pipelineId }, body }), secret);
    });
  };
  return (
    <form className="filters" onSubmit={(e) => void submit(e)} aria-label="Add a trigger">
      <label>
        Kind{' '}
        <select value={kind} onChange={(e) => setKind(e.target.value as 'git' | 'cron')}>
          <option value="git">git webhook (push)</option>
          <option value="cron">cron</option>
        </select>
      </label>
      {kind === 'git' ? (
        <>
          <label>
            Provider{' '}
            <select value={provider} onChange={(e) => setProvider(e.target.value as Provider)}>
              <option>github</option>
              <option>gitlab</option>
              <option>gitea</option>
            </select>
          </label>
          <label>
            Branch filter{' '}
            <input value={branchFilter} onChange={(e) => setBranchFilter(e.target.value)} />
          </label>
        </>
      ) : (
        <label>
          Schedule (UTC) <input value={cron} onChange={(e) => setCron(e.target.value)} required />
        </label>
      )}
      <button type="submit">Add trigger</button>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </form>
  );
}

/** 32 random bytes as hex: the webhook secret shared with the git host. */
function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The webhook URL is relative until the server's public URL is set: this origin then. */
function absolute(url: string): string {
  return url.startsWith('/') ? `${window.location.origin}${url}` : url;
}
