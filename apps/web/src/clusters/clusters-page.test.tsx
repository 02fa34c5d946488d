import { afterEach, expect, test, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { Cluster, CreateCluster } from '@sluice/protocol';
import { InputError } from '@sluice/errors';
import { ClusterTable } from './clusters-page.js';
import { KubeconfigForm } from './kubeconfig-form.js';

afterEach(cleanup);

const KUBECONFIG = 'users: [{name: u, user: {token: never-shown-0815}}]';

function cluster(fields: Partial<Cluster>): Cluster {
  return {
    name: 'prod',
    kind: 'kubeconfig',
    server: 'https://prod.example:6443',
    namespace: 'apps',
    hasCredentials: true,
    runtime: null,
    serviceAccount: null,
    namespaces: [],
    projects: null,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    ...fields,
  };
}

test('each cluster shows how steps name it; only a kubeconfig one is deleted here, after asking', async () => {
  const onDelete = vi.fn(() => Promise.resolve());
  const edge = cluster({
    name: 'edge',
    kind: 'behind-firewall',
    runtime: 'on-prem',
    serviceAccount: 'sluice-edge',
    namespaces: ['apps'],
    hasCredentials: false,
  });
  render(<ClusterTable clusters={[cluster({}), edge]} onDelete={onDelete} />);
  const prod = document.querySelector('tr[data-cluster="prod"]');
  expect(prod?.textContent).toContain('kubectl --context prod');
  expect(prod?.textContent).toContain('cluster: prod');
  expect(prod?.textContent).toContain('every project');
  const behind = document.querySelector('tr[data-cluster="edge"]');
  expect(behind?.textContent).toContain('behind the firewall of runtime on-prem');
  expect(behind?.textContent).toContain('sluice delete cluster edge');
  expect(screen.queryByRole('button', { name: 'Delete cluster edge' })).toBeNull();

  fireEvent.click(screen.getByRole('button', { name: 'Delete cluster prod' }));
  const confirm = screen.getByRole('group', { name: 'Confirm deleting cluster prod' });
  expect(onDelete).not.toHaveBeenCalled();
  fireEvent.click(screen.getByRole('button', { name: 'Keep' }));
  expect(screen.queryByRole('group')).toBeNull();
  expect(confirm.isConnected).toBe(false);

  fireEvent.click(screen.getByRole('button', { name: 'Delete cluster prod' }));
  fireEvent.click(screen.getByRole('button', { name: 'Yes, delete' }));
  await waitFor(() => expect(onDelete).toHaveBeenCalledWith('prod'));
});

function fill(label: string, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

test('the form submits once, shows a refusal beside it, and forgets the kubeconfig once added', async () => {
  let answer: { resolve: () => void; reject: (err: Error) => void } | undefined;
  const onCreate = vi.fn(
    (_body: CreateCluster) =>
      new Promise<void>((resolve, reject) => {
        answer = { resolve, reject };
      }),
  );
  render(<KubeconfigForm onCreate={onCreate} />);
  fill('Name', 'prod');
  fill('Kubeconfig', KUBECONFIG);
  fill('Projects (optional, comma-separated)', 'web, api');
  const button = screen.getByRole('button', { name: 'Add cluster' });
  fireEvent.click(button);
  fireEvent.click(button);
  await waitFor(() => expect(button).toHaveProperty('disabled', true));
  expect(onCreate).toHaveBeenCalledTimes(1);
  expect(onCreate.mock.calls[0]?.[0]).toEqual({
    name: 'prod',
    kubeconfig: KUBECONFIG,
    projects: ['web', 'api'],
  });

  answer?.reject(
    new InputError('SLUICE_CLUSTER_KUBECONFIG_INVALID', 'The kubeconfig cannot be used: no'),
  );
  const alert = await screen.findByRole('alert');
  expect(alert.textContent).toContain('SLUICE_CLUSTER_KUBECONFIG_INVALID');
  expect(button).toHaveProperty('disabled', false);
  // Kept, to fix.
  expect(screen.getByRole('textbox', { name: 'Kubeconfig' })).toHaveProperty('value', KUBECONFIG);

  fireEvent.click(button);
  await waitFor(() => expect(onCreate).toHaveBeenCalledTimes(2));
  answer?.resolve();
  await screen.findByText('Cluster prod added.');
  expect(screen.getByLabelText('Kubeconfig')).toHaveProperty('value', '');
  expect(document.body.innerHTML).not.toContain('never-shown-0815');
});
