/**
 * Runner agents: created with a token shown once, listed with online/offline from the age of
 * their last heartbeat and the health they report, deleted with their tokens revoked.
 * @module
 */
import { NotAllowedError, NotFoundError } from '@sluice/errors';
import { jsonb } from '@sluice/db';
import { json } from './json-columns.js';
import type { Agent } from '@sluice/protocol';
import type { IdentityService } from './identity-service.js';
import { isoTime } from './server-context.js';
import type { ServerContext } from './server-context.js';

interface AgentRow {
  id: string;
  name: string;
  runtimes: string[];
  health: unknown;
  version: string | null;
  last_heartbeat_at: Date | null;
  created_at: Date;
}

export class AgentService {
  readonly #ctx: ServerContext;
  readonly #identity: IdentityService;

  constructor(ctx: ServerContext, identity: IdentityService) {
    this.#ctx = ctx;
    this.#identity = identity;
  }

  async create(
    accountId: string,
    input: { name: string; runtimes: string[] },
  ): Promise<{ agent: Agent; token: string }> {
    const id = this.#ctx.ids.next('agt');
    const token = await this.#ctx.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('agents')
        .values({ id, account_id: accountId, name: input.name, runtimes: jsonb(input.runtimes) })
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
    health: Record<string, unknown>,
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

  async delete(accountId: string, agentId: string): Promise<void> {
    await this.get(accountId, agentId);
    await this.#ctx.database.db.transaction().execute(async (trx) => {
      await this.#identity.revokeSubject(trx, agentId);
      await trx.deleteFrom('agents').where('id', '=', agentId).execute();
    });
  }

  #toApi(row: AgentRow): Agent {
    const last = row.last_heartbeat_at;
    const online =
      last !== null && this.#ctx.clock() - last.getTime() < this.#ctx.config.agentOfflineAfterMs;
    const health =
      row.health !== null && typeof row.health === 'object' && 'healthy' in row.health
        ? (row.health as Agent['health'])
        : null;
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
