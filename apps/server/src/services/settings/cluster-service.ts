/**
 * The account's Kubernetes clusters (migration 013). One reachable from the control plane is
 * added from a kubeconfig: one context of it is kept (kubeconfig.ts), its credentials encrypted
 * with the server key as git tokens are (the account and name as associated data), never
 * returned by the API and never logged; the engine of each of the account's builds gets them
 * decrypted, one context per cluster in every step's KUBECONFIG, and masks them. A cluster
 * limited to some projects goes to their builds only.
 * @module
 */
import { ConflictError, NotFoundError } from '@sluice/errors';
import { decryptSecret, encryptSecret } from '@sluice/pki';
import { jsonb } from '@sluice/db';
import type { ClusterRow } from '@sluice/db';
import type { Cluster, CreateCluster, DeniedCluster, EngineCluster } from '@sluice/protocol';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';
import { singleContext } from './kubeconfig.js';

export class ClusterService {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  async list(accountId: string): Promise<Cluster[]> {
    return (await this.#rows(accountId)).map(toCluster);
  }

  async get(accountId: string, name: string): Promise<Cluster> {
    const row = (await this.#rows(accountId)).find((r) => r.name === name);
    if (row === undefined) throw notFound(name);
    return toCluster(row);
  }

  /**
   * @throws InputError `SLUICE_CLUSTER_KUBECONFIG_INVALID` saying what in the file cannot be used.
   * @throws ConflictError `SLUICE_CLUSTER_EXISTS` when the name is taken.
   */
  async create(accountId: string, input: CreateCluster): Promise<Cluster> {
    const kept = singleContext(input.kubeconfig, input);
    const now = new Date(this.#ctx.clock());
    const stored = JSON.stringify({ kubeconfig: kept.kubeconfig, secrets: kept.secrets });
    const row = await this.#ctx.database.db
      .insertInto('clusters')
      .values({
        account_id: accountId,
        name: input.name,
        kind: 'kubeconfig',
        server: kept.server,
        namespace: kept.namespace,
        kubeconfig_encrypted: encryptSecret(stored, this.#ctx.secretKey, {
          associatedData: associatedData(accountId, input.name),
        }),
        projects: input.projects === undefined ? null : jsonb([...new Set(input.projects)].sort()),
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row === undefined)
      throw new ConflictError('SLUICE_CLUSTER_EXISTS', `Cluster "${input.name}" already exists`, {
        hint: `Delete it first: sluice delete cluster ${input.name}`,
      });
    return toCluster(row);
  }

  async delete(accountId: string, name: string): Promise<void> {
    const result = await this.#ctx.database.db
      .deleteFrom('clusters')
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (result.numDeletedRows === 0n) throw notFound(name);
  }

  /**
   * For the engine of a build of `project` only: each cluster the project may use, credentials
   * decrypted; and the names of those it may not, with who may, so a step can say why.
   */
  async forEngine(
    accountId: string,
    project: string,
  ): Promise<{ clusters: EngineCluster[]; denied: DeniedCluster[] }> {
    const rows = await this.#rows(accountId);
    const allowed = (row: ClusterRow) => row.projects === null || row.projects.includes(project);
    const denied = rows
      .filter((row) => !allowed(row))
      .map((row) => ({ name: row.name, projects: row.projects ?? [] }));
    const clusters = rows.filter(allowed).flatMap((row) => {
      if (row.kubeconfig_encrypted === null) return [];
      const plain = decryptSecret(row.kubeconfig_encrypted, this.#ctx.secretKey, {
        associatedData: associatedData(accountId, row.name),
      });
      const { kubeconfig, secrets } = JSON.parse(plain) as {
        kubeconfig: string;
        secrets: string[];
      };
      return [{ name: row.name, kubeconfig, secrets }];
    });
    return { clusters, denied };
  }

  #rows(accountId: string): Promise<ClusterRow[]> {
    return this.#ctx.database.db
      .selectFrom('clusters')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name')
      .execute();
  }
}

function notFound(name: string): NotFoundError {
  return new NotFoundError('SLUICE_CLUSTER_NOT_FOUND', `Cluster "${name}" does not exist`, {
    hint: 'List them with sluice get clusters',
  });
}

function associatedData(accountId: string, name: string): string {
  return `cluster:${accountId}:${name}`;
}

function toCluster(row: ClusterRow): Cluster {
  return {
    name: row.name,
    kind: row.kind,
    server: row.server,
    namespace: row.namespace,
    hasCredentials: row.kubeconfig_encrypted !== null,
    projects: row.projects,
    createdAt: isoTime(row.created_at) ?? '',
    updatedAt: isoTime(row.updated_at) ?? '',
  };
}
