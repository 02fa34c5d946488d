/**
 * The account's Kubernetes clusters (migration 013). One reachable from the control plane is
 * added from a kubeconfig: one context of it is kept (kubeconfig.ts), its credentials encrypted
 * with the server key as git tokens are (the account and name as associated data), never
 * returned by the API and never logged; the engine of each of the account's builds that names
 * the cluster gets them decrypted, one context per cluster in every step's KUBECONFIG, and masks
 * them. One behind the
 * firewall is only where it is: a runtime, a service account in that runtime's namespace and
 * the namespaces it was granted (`sluice create cluster --runtime` made them); a build on that
 * runtime gets a task for its agent to mint the account's token in the cluster (`inCluster`),
 * a build on another runtime cannot reach it and is told so. A cluster limited to some projects
 * goes to their builds only.
 * @module
 */
import { ConflictError, InputError, NotFoundError } from '@sluice/errors';
import { decryptSecret, encryptSecret } from '@sluice/pki';
import { jsonb } from '@sluice/db';
import type { ClusterRow, Executor } from '@sluice/db';
import type {
  Cluster,
  CreateCluster,
  DeniedCluster,
  EngineCluster,
  InClusterCluster,
} from '@sluice/protocol';
import { isoTime } from '../server-context.js';
import type { ServerContext } from '../server-context.js';
import { singleContext } from './kubeconfig.js';
import type { RuntimeService } from './runtime-service.js';

export class ClusterService {
  readonly #ctx: ServerContext;
  readonly #runtimes: RuntimeService;

  constructor(ctx: ServerContext, runtimes: RuntimeService) {
    this.#ctx = ctx;
    this.#runtimes = runtimes;
  }

  async list(accountId: string): Promise<Cluster[]> {
    return (await this.#rows(this.#ctx.database.db, accountId)).map(toCluster);
  }

  async get(accountId: string, name: string): Promise<Cluster> {
    const row = (await this.#rows(this.#ctx.database.db, accountId)).find((r) => r.name === name);
    if (row === undefined) throw notFound(name);
    return toCluster(row);
  }

  /**
   * @throws InputError `SLUICE_CLUSTER_KUBECONFIG_INVALID` saying what in the file cannot be used.
   * @throws ConflictError `SLUICE_CLUSTER_EXISTS` when the name is taken.
   */
  async create(accountId: string, input: CreateCluster): Promise<Cluster> {
    const now = new Date(this.#ctx.clock());
    const common = {
      account_id: accountId,
      name: input.name,
      projects: input.projects === undefined ? null : jsonb([...new Set(input.projects)].sort()),
      created_at: now,
      updated_at: now,
    };
    const values =
      input.runtime === undefined
        ? this.#fromKubeconfig(accountId, input)
        : await this.#behindFirewall(accountId, input, input.runtime);
    const row = await this.#ctx.database.db
      .insertInto('clusters')
      .values({ ...common, ...values })
      .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (row === undefined)
      throw new ConflictError('SLUICE_CLUSTER_EXISTS', `Cluster "${input.name}" already exists`, {
        hint: `Delete it first: sluice delete cluster ${input.name}`,
      });
    return toCluster(row);
  }

  #fromKubeconfig(accountId: string, input: CreateCluster) {
    if (input.kubeconfig === undefined)
      throw invalid(
        'give either `kubeconfig` (reachable from the control plane) or `runtime` (behind the firewall)',
      );
    const kept = singleContext(input.kubeconfig, input);
    const stored = JSON.stringify({ kubeconfig: kept.kubeconfig, secrets: kept.secrets });
    return {
      kind: 'kubeconfig' as const,
      server: kept.server,
      namespace: kept.namespace,
      kubeconfig_encrypted: encryptSecret(stored, this.#ctx.secretKey, {
        associatedData: associatedData(accountId, input.name),
      }),
    };
  }

  async #behindFirewall(accountId: string, input: CreateCluster, runtime: string) {
    if (input.kubeconfig !== undefined)
      throw invalid(
        '`kubeconfig` and `runtime` exclude each other: a cluster behind the firewall keeps its credentials',
      );
    const missing = (['serviceAccount', 'namespaces', 'server'] as const).filter(
      (field) => input[field] === undefined,
    );
    if (missing.length > 0)
      throw invalid(
        `a cluster behind the firewall needs ${missing.map((f) => `\`${f}\``).join(', ')}`,
      );
    const known = await this.#ctx.database.db
      .selectFrom('runtime_environments')
      .select('name')
      .where('account_id', '=', accountId)
      .where('name', '=', runtime)
      .executeTakeFirst();
    if (known === undefined)
      throw new NotFoundError(
        'SLUICE_RUNTIME_NOT_FOUND',
        `Runtime environment "${runtime}" does not exist`,
        { hint: 'List them with sluice get runtime-environments' },
      );
    // Over its parents: a runtime extending system/default/k8s is one.
    const spec = await this.#runtimes.resolve(accountId, runtime);
    if (spec.runtimeScheduler?.type !== 'KubernetesPod')
      throw invalid(
        `runtime "${runtime}" does not run builds in Kubernetes, so no cluster is behind its firewall`,
      );
    const namespaces = [...new Set(input.namespaces)];
    return {
      kind: 'behind-firewall' as const,
      server: input.server ?? '',
      namespace: input.namespace ?? namespaces[0] ?? null,
      runtime,
      service_account: input.serviceAccount ?? null,
      namespaces: jsonb(namespaces),
    };
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
   * For the engine of a build of `project` on `runtime` only: of the clusters `pick` chooses (the
   * ones its pipeline names: engine-grants.ts), or of all, each one reachable from the control
   * plane that the project may use, credentials decrypted; and those it may not, with why, so a
   * step can say it. Clusters behind this runtime's firewall come to the engine from its agent
   * (`inCluster`), not from here.
   */
  async forEngine(
    accountId: string,
    build: { project: string; runtime: string | null },
    options: { pick?: (name: string) => boolean } = {},
  ): Promise<{ clusters: EngineCluster[]; denied: DeniedCluster[] }> {
    const rows = (await this.#rows(this.#ctx.database.db, accountId)).filter(
      (row) => options.pick?.(row.name) ?? true,
    );
    const denied = rows.flatMap((row): DeniedCluster[] => {
      if (!allowed(row, build.project)) return [{ name: row.name, projects: row.projects ?? [] }];
      if (row.kind === 'behind-firewall' && row.runtime !== build.runtime)
        return [
          {
            name: row.name,
            projects: row.projects ?? [],
            reason: `it is behind the firewall of runtime ${row.runtime ?? '?'}, and this build runs on ${build.runtime ?? 'no runtime'}: run the pipeline on runtime ${row.runtime ?? '?'}`,
          },
        ];
      return [];
    });
    const clusters = rows.flatMap((row) => {
      if (!allowed(row, build.project) || row.kubeconfig_encrypted === null) return [];
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

  /**
   * The clusters behind `runtime`'s firewall that a build of project `projectId` may use: its
   * agent mints each one's token in the cluster when it makes the build's objects.
   */
  async inCluster(
    executor: Executor,
    accountId: string,
    build: { projectId: string; runtime: string },
  ): Promise<InClusterCluster[]> {
    const rows = (await this.#rows(executor, accountId)).filter(
      (row) => row.kind === 'behind-firewall' && row.runtime === build.runtime,
    );
    if (rows.length === 0) return [];
    const project = await executor
      .selectFrom('projects')
      .select('name')
      .where('id', '=', build.projectId)
      .executeTakeFirst();
    return rows
      .filter((row) => project !== undefined && allowed(row, project.name))
      .map((row) => ({
        name: row.name,
        serviceAccount: row.service_account ?? '',
        namespace: row.namespace ?? row.namespaces[0] ?? 'default',
      }));
  }

  #rows(executor: Executor, accountId: string): Promise<ClusterRow[]> {
    return executor
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

function allowed(row: ClusterRow, project: string): boolean {
  return row.projects === null || row.projects.includes(project);
}

function invalid(problem: string): InputError {
  return new InputError('SLUICE_CLUSTER_INVALID', `The cluster cannot be added: ${problem}`, {
    hint: 'sluice create cluster --help shows both kinds',
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
    runtime: row.runtime,
    serviceAccount: row.service_account,
    namespaces: row.namespaces,
    projects: row.projects,
    createdAt: isoTime(row.created_at) ?? '',
    updatedAt: isoTime(row.updated_at) ?? '',
  };
}
