/**
 * Kubernetes clusters: the clusters builds deploy to, by name, with where each one's credentials
 * are (a kubeconfig the control plane keeps, or behind the firewall of a runtime, never leaving
 * its cluster), its server, namespaces and projects, and how a step names it. A cluster the
 * control plane can reach is added here from a kubeconfig and deleted here after a confirmation;
 * one behind the firewall is made and deleted by the CLI, which changes objects in the cluster
 * through a kube context, so the page gives the command.
 * @module
 */
import { useState } from 'react';
import type { Cluster, CreateCluster } from '@sluice/protocol';
import { useApi } from '../api/api-context.js';
import { usePoll } from '../api/use-poll.js';
import { ErrorNote } from '../app/error-note.js';
import { formatAgo } from '../app/format.js';
import { Table } from '../app/table.js';
import { useAction } from '../app/use-action.js';
import type { Action } from '../app/use-action.js';
import {
  CREATE_BEHIND_FIREWALL,
  CREATE_FROM_KUBECONFIG,
  deleteCommand,
  kindText,
  namespacesText,
  projectsText,
  usageLines,
} from './cluster-text.js';
import { KubeconfigForm } from './kubeconfig-form.js';

export function ClustersPage() {
  const api = useApi();
  const list = usePoll((signal) => api.call('listClusters', { signal }), {
    intervalMs: 5000,
    key: 'clusters',
  });
  const create = async (body: CreateCluster) => {
    await api.call('createCluster', { body });
    list.reload();
  };
  const remove = async (name: string) => {
    await api.call('deleteCluster', { params: { name } });
    list.reload();
  };
  return (
    <section>
      <h1>Kubernetes clusters</h1>
      <p className="muted">
        The clusters builds deploy to, by name. Every step gets a KUBECONFIG with one context per
        cluster its project may use, named after it; its credentials are never shown again.
      </p>
      {list.error ? <ErrorNote error={list.error} /> : null}
      {list.data?.items.length === 0 ? <EmptyState /> : null}
      {list.data?.items.length ? (
        <ClusterTable clusters={list.data.items} onDelete={remove} />
      ) : null}
      <h2>Add from a kubeconfig</h2>
      <p>For a cluster whose API server the control plane can reach.</p>
      <KubeconfigForm onCreate={create} />
      <h2>Add one behind the firewall</h2>
      <p>
        A cluster only a runtime&apos;s builds can reach is added with the CLI, which makes a
        service account and its role bindings in the cluster through your kube context; its
        credentials never leave the cluster:
      </p>
      <pre className="commands">{CREATE_BEHIND_FIREWALL}</pre>
    </section>
  );
}

function EmptyState() {
  return (
    <div className="empty">
      <p>No clusters yet. Add one with the form below, or with the CLI:</p>
      <ul>
        <li>
          behind a runtime&apos;s firewall: <code>{CREATE_BEHIND_FIREWALL}</code>
        </li>
        <li>
          from a kubeconfig: <code>{CREATE_FROM_KUBECONFIG}</code>
        </li>
      </ul>
    </div>
  );
}

export interface ClusterTableProps {
  clusters: readonly Cluster[];
  onDelete: (name: string) => Promise<unknown>;
}

export function ClusterTable({ clusters, onDelete }: ClusterTableProps) {
  const action = useAction();
  const [confirming, setConfirming] = useState<string | undefined>();
  const remove = (name: string) =>
    action.run(async () => {
      await onDelete(name);
      setConfirming(undefined);
    });
  return (
    <>
      <Table
        label="Clusters"
        className="clusters"
        headers={[
          'Name',
          'Kind',
          'Server',
          'Namespace',
          'Projects',
          'In steps',
          'Created',
          'Delete',
        ]}
      >
        {clusters.map((cluster) => (
          <tr key={cluster.name} data-cluster={cluster.name}>
            <td>{cluster.name}</td>
            <td>
              {kindText(cluster)}
              {cluster.serviceAccount ? (
                <div className="muted small">service account {cluster.serviceAccount}</div>
              ) : null}
            </td>
            <td className="mono wrap">{cluster.server}</td>
            <td>{namespacesText(cluster)}</td>
            <td>{projectsText(cluster)}</td>
            <td>
              {usageLines(cluster.name).map((line) => (
                <code key={line} className="usage">
                  {line}
                </code>
              ))}
            </td>
            <td>{formatAgo(cluster.createdAt)}</td>
            <td>
              <DeleteCell
                cluster={cluster}
                action={action}
                confirming={confirming === cluster.name}
                onAsk={() => setConfirming(cluster.name)}
                onCancel={() => setConfirming(undefined)}
                onConfirm={() => void remove(cluster.name)}
              />
            </td>
          </tr>
        ))}
      </Table>
      {action.error ? <ErrorNote error={action.error} /> : null}
    </>
  );
}

interface DeleteCellProps {
  cluster: Cluster;
  action: Action;
  confirming: boolean;
  onAsk: () => void;
  onCancel: () => void;
  onConfirm: () => void;
}

function DeleteCell({ cluster, action, confirming, onAsk, onCancel, onConfirm }: DeleteCellProps) {
  if (cluster.kind === 'behind-firewall')
    return (
      <div className="small">
        With the CLI, which also removes the service account and bindings it made:{' '}
        <code className="usage">{deleteCommand(cluster.name)}</code>
      </div>
    );
  if (!confirming)
    return (
      <button
        type="button"
        className="danger"
        aria-label={`Delete cluster ${cluster.name}`}
        onClick={onAsk}
      >
        Delete
      </button>
    );
  return (
    <div role="group" aria-label={`Confirm deleting cluster ${cluster.name}`} className="confirm">
      <span className="small">
        Delete {cluster.name}? Builds that name it then fail; the cluster itself is not touched.
      </span>
      <button type="button" className="danger" disabled={action.pending} onClick={onConfirm}>
        Yes, delete
      </button>
      <button type="button" autoFocus disabled={action.pending} onClick={onCancel}>
        Keep
      </button>
    </div>
  );
}
