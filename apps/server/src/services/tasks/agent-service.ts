/**
 * Runner agents: created with a token shown once, listed with online/offline from the age of
 * their last heartbeat (offline at once after an agent's report that it stopped) and the health
 * they report (per runtime too), given a new list of
 * runtimes with the same token, deleted with their tokens revoked. An agent asks which runtimes
 * it serves (kind and namespace, from the resolved spec) and which of the builds whose objects
 * it holds have finished, so it can remove those (only builds of its own runtimes, and builds
 * dispatched to it whose runtime was taken from it since: those it finishes, `draining`).
 * @module
 */
import { InputError, NotAllowedError, NotFoundError } from '@sluice/errors';
import { jsonb } from '@sluice/db';
import type { AgentRow } from '@sluice/db';
import { AgentHealth, FINISHED_STATUSES } from '@sluice/protocol';
import type { Agent, AgentRuntime, BuildState } from '@sluice/protocol';
import { json } from '../json-columns.js';
import type { IdentityService } from '../identity/identity-service.js';
import type { RuntimeService } from '../settings/runtime-service.js';
import { isoTime } from '../server-context.js';
import { statusesOnRuntimes } from '../builds/build-rows.js';
import type { ServerContext } from '../server-context.js';

export class AgentService {
  readonly #ctx: ServerContext;
  readonly #identity: IdentityService;
  readonly #runtimes: RuntimeService;

  constructor(ctx: ServerContext, identity: IdentityService, runtimes: RuntimeService) {
    this.#ctx = ctx;
    this.#identity = identity;
    this.#runtimes = runtimes;
  }

  /**
   * An agent for runtimes that exist: one that does not would leave it serving nothing.
   * @throws NotFoundError `SLUICE_RUNTIME_NOT_FOUND` naming the first runtime that does not exist
   */
  async create(
    accountId: string,
    input: { name: string; runtimes: string[] },
  ): Promise<{ agent: Agent; token: string }> {
    const runtimes = [...new Set(input.runtimes)];
    for (const name of runtimes) await this.#runtimes.assertExists(accountId, name);
    const id = this.#ctx.ids.next('agt');
    const token = await this.#ctx.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('agents')
        .values({ id, account_id: accountId, name: input.name, runtimes: jsonb(runtimes) })
        .execute();
      return (
        await this.#identity.issueToken(
          { accountId, kind: 'agent', subjectId: id, name: `agent ${input.name}` },
          trx,
        )
      ).token;
    });
    return { agent: await this.get(accountId, id), token };
  }

  async get(accountId: string, agentId: string): Promise<Agent> {
    const row = await this.#ctx.database.db
      .selectFrom('agents')
      .selectAll()
      .where('id', '=', agentId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError('SLUICE_AGENT_NOT_FOUND', `Agent ${agentId} does not exist`);
    return this.#toApi(row);
  }

  async list(accountId: string): Promise<Agent[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('agents')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name')
      .execute();
    return rows.map((r) => this.#toApi(r));
  }

  async heartbeat(
    agentId: string,
    health: AgentHealth,
    version: string | undefined,
  ): Promise<void> {
    await this.#ctx.database.db
      .updateTable('agents')
      .set({
        health: json(health),
        version: version ?? null,
        last_heartbeat_at: new Date(this.#ctx.clock()),
      })
      .where('id', '=', agentId)
      .execute();
  }

  /**
   * The agent's runtimes as it needs them. A runtime whose spec cannot be resolved (deleted, or
   * a broken `extends`) is left out with a warning: the agent cannot serve it either way.
   */
  async runtimesOf(agentId: string): Promise<AgentRuntime[]> {
    const agent = await this.#row(agentId);
    const runtimes: AgentRuntime[] = [];
    for (const name of agent.runtimes) {
      try {
        const spec = await this.#runtimes.resolve(agent.account_id, name);
        const engine = spec.runtimeScheduler;
        runtimes.push(
          engine?.type === 'KubernetesPod'
            ? { name, kind: 'kubernetes', namespace: engine.cluster?.namespace ?? null }
            : { name, kind: 'local', namespace: null },
        );
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        this.#ctx.log.warn('agent runtime cannot be resolved', { agentId, runtime: name });
      }
    }
    return runtimes;
  }

  /**
   * Each build's status, for builds of one of the agent's runtimes and builds dispatched to the
   * agent whose runtime was taken from it since (`draining`: it finishes them, and keeps their
   * objects until they end); any other build (another agent's on another runtime, another
   * account's, none at all) is `unknown`, so an agent learns nothing about builds it never ran.
   */
  async buildStates(agentId: string, buildIds: readonly string[]): Promise<BuildState[]> {
    const agent = await this.#row(agentId);
    const rows = await statusesOnRuntimes(this.#ctx.database.db, agent.account_id, {
      runtimes: agent.runtimes,
      agentId,
      buildIds,
    });
    const found = new Map(rows.map((r) => [r.id, r]));
    return buildIds.map((buildId) => {
      const row = found.get(buildId);
      if (row === undefined) return { buildId, status: 'unknown', finished: true, draining: false };
      const served = row.runtime !== null && agent.runtimes.includes(row.runtime);
      return {
        buildId,
        status: row.status,
        finished: FINISHED_STATUSES.includes(row.status),
        draining: !served,
      };
    });
  }

  /** The agent's account and runtimes, for a report about one of its builds. */
  async servedBy(
    agentId: string,
  ): Promise<{ accountId: string; agentId: string; runtimes: string[] }> {
    const row = await this.#row(agentId);
    return { accountId: row.account_id, agentId, runtimes: row.runtimes };
  }

  async #row(agentId: string): Promise<{ account_id: string; runtimes: string[] }> {
    const row = await this.#ctx.database.db
      .selectFrom('agents')
      .select(['account_id', 'runtimes'])
      .where('id', '=', agentId)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError('SLUICE_AGENT_NOT_FOUND', `Agent ${agentId} does not exist`);
    return row;
  }

  /** Refuses a runtime the agent does not serve: an agent sees only its own runtimes. */
  async assertServes(agentId: string, runtime: string): Promise<string> {
    const row = await this.#ctx.database.db
      .selectFrom('agents')
      .select(['account_id', 'runtimes'])
      .where('id', '=', agentId)
      .executeTakeFirst();
    if (row === undefined || !row.runtimes.includes(runtime)) {
      throw new NotAllowedError(
        'SLUICE_AGENT_RUNTIME_FORBIDDEN',
        `This agent does not serve runtime "${runtime}"`,
      );
    }
    return row.account_id;
  }

  /**
   * Replaces the runtimes the agent serves, each of which must exist. Its token is untouched:
   * the agent's next `agentRuntimes` call and next poll see the new list (a long poll already
   * waiting keeps the old one until it returns).
   * @throws NotFoundError `SLUICE_AGENT_NOT_FOUND`, or `SLUICE_RUNTIME_NOT_FOUND` naming a runtime
   */
  async update(accountId: string, agentId: string, input: { runtimes: string[] }): Promise<Agent> {
    await this.get(accountId, agentId);
    const runtimes = [...new Set(input.runtimes)];
    for (const name of runtimes) await this.#runtimes.assertExists(accountId, name);
    await this.#ctx.database.db
      .updateTable('agents')
      .set({ runtimes: jsonb(runtimes) })
      .where('id', '=', agentId)
      .where('account_id', '=', accountId)
      .execute();
    return this.get(accountId, agentId);
  }

  async delete(accountId: string, agentId: string): Promise<void> {
    await this.get(accountId, agentId);
    await this.#ctx.database.db.transaction().execute(async (trx) => {
      await this.#identity.revokeSubject(trx, agentId);
      await trx.deleteFrom('agents').where('id', '=', agentId).execute();
    });
  }

  #toApi(row: AgentRow): Agent {
    const last = row.last_heartbeat_at;
    // `{}` until the first heartbeat.
    const parsed = AgentHealth.safeParse(row.health);
    const health = parsed.success ? parsed.data : null;
    // An agent that said it stopped is offline at once; one that died, once its heartbeats stop.
    const online =
      last !== null &&
      health?.stoppedAt === undefined &&
      this.#ctx.clock() - last.getTime() < this.#ctx.config.agentOfflineAfterMs;
    return {
      id: row.id,
      name: row.name,
      runtimes: row.runtimes,
      online,
      health,
      version: row.version,
      lastHeartbeatAt: isoTime(last),
      createdAt: isoTime(row.created_at) ?? '',
    };
  }
}
