/**
 * A pipeline's triggers: listed, created (a cron expression or branch regex that does not
 * compile, or compiles to too large a program, is refused with 422 naming where), deleted. Webhook secrets are encrypted at rest
 * with the server key and never returned; see `trigger-rows.ts` for what each kind stores where.
 * @module
 */
import { InputError, NotFoundError } from '@sluice/errors';
import { encryptSecret } from '@sluice/pki';
import { CRON_INVALID, nextRun, parseCron, TRIGGER_BRANCH_FILTER_INVALID } from '@sluice/triggers';
import { jsonb } from '@sluice/db';
import type { TriggerRow } from '@sluice/db';
import type { CreateTrigger, Trigger } from '@sluice/protocol';
import type { z } from 'zod';
import type { ParsePool } from '../parsing/parse-pool.js';
import type { ProjectService } from '../projects/project-service.js';
import type { GitIntegrationService } from '../settings/git-integration-service.js';
import type { ServerContext } from '../server-context.js';
import { CRON_BRANCH_KEY, secretAssociatedData, toTrigger } from './trigger-rows.js';

type CreateTriggerInput = z.output<typeof CreateTrigger>;
type GitInput = Extract<CreateTriggerInput, { kind: 'git' }>;
type CronInput = Extract<CreateTriggerInput, { kind: 'cron' }>;

export class TriggerService {
  readonly #ctx: ServerContext;
  readonly #projects: ProjectService;
  readonly #gitIntegrations: GitIntegrationService;
  readonly #parser: ParsePool;

  constructor(
    ctx: ServerContext,
    services: {
      projects: ProjectService;
      gitIntegrations: GitIntegrationService;
      parser: ParsePool;
    },
  ) {
    this.#ctx = ctx;
    this.#projects = services.projects;
    this.#gitIntegrations = services.gitIntegrations;
    this.#parser = services.parser;
  }

  async list(accountId: string, pipelineId: string): Promise<Trigger[]> {
    await this.#projects.pipelineRow(accountId, pipelineId);
    const rows = await this.#ctx.database.db
      .selectFrom('triggers')
      .selectAll()
      .where('pipeline_id', '=', pipelineId)
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute();
    return rows.map((row) => toTrigger(row, this.#ctx.config.publicUrl));
  }

  async create(accountId: string, pipelineId: string, input: CreateTriggerInput): Promise<Trigger> {
    await this.#projects.pipelineRow(accountId, pipelineId);
    // A git trigger names an integration of the account, or none (404 naming it).
    if (input.kind === 'git' && input.gitIntegration !== undefined)
      await this.#gitIntegrations.get(accountId, input.gitIntegration);
    const id = this.#ctx.ids.next('trg');
    const values =
      input.kind === 'git'
        ? await this.#gitValues(id, input)
        : cronValues(input, new Date(this.#ctx.clock()));
    const row = await this.#ctx.database.db
      .insertInto('triggers')
      .values({ id, account_id: accountId, pipeline_id: pipelineId, ...values })
      .returningAll()
      .executeTakeFirstOrThrow();
    this.#ctx.log.info('trigger created', { triggerId: id, pipelineId, kind: input.kind });
    return toTrigger(row, this.#ctx.config.publicUrl);
  }

  async delete(accountId: string, triggerId: string): Promise<void> {
    const deleted = await this.#ctx.database.db
      .deleteFrom('triggers')
      .where('id', '=', triggerId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (deleted.numDeletedRows === 0n) throw triggerNotFound(triggerId);
    this.#ctx.log.info('trigger deleted', { triggerId });
  }

  /** An enabled git trigger, for the webhook endpoint. Unknown and disabled look the same. */
  async gitTrigger(triggerId: string): Promise<TriggerRow> {
    const row = await this.#ctx.database.db
      .selectFrom('triggers')
      .selectAll()
      .where('id', '=', triggerId)
      .where('kind', '=', 'git')
      .where('enabled', '=', true)
      .executeTakeFirst();
    if (row === undefined) throw triggerNotFound(triggerId);
    return row;
  }

  /** A regular expression is compiled in a worker: RE2 takes seconds over some patterns. */
  async #gitValues(id: string, input: GitInput) {
    const branchFilter = input.branchFilter ?? '';
    const check = await this.#parser.checkBranchFilter(branchFilter);
    if (!check.ok)
      throw new InputError(TRIGGER_BRANCH_FILTER_INVALID, check.message, {
        details: { unprocessable: true, field: 'branchFilter', branchFilter },
      });
    return {
      kind: 'git' as const,
      provider: input.provider,
      repo: input.repo ?? null,
      events: jsonb([...new Set(input.events)]),
      branch_filter: branchFilter === '' ? null : branchFilter,
      git_integration: input.gitIntegration ?? null,
      secret_encrypted: encryptSecret(input.secret, this.#ctx.secretKey, {
        associatedData: secretAssociatedData(id),
      }),
      variables: jsonb(input.variables ?? {}),
    };
  }
}

/** The first run is the first matching minute after `now`. */
function cronValues(input: CronInput, now: Date) {
  const parsed = parseCron(input.cron);
  if (!parsed.ok)
    throw new InputError(
      CRON_INVALID,
      `Cron expression "${input.cron}" is invalid at column ${parsed.column}: ${parsed.message}`,
      { details: { unprocessable: true, field: 'cron', column: parsed.column } },
    );
  const variables: Record<string, string> = { ...input.variables };
  if (input.branch !== undefined) variables[CRON_BRANCH_KEY] = input.branch;
  return {
    kind: 'cron' as const,
    cron: input.cron,
    next_run_at: nextRun(parsed.schedule, now),
    variables: jsonb(variables),
  };
}

function triggerNotFound(triggerId: string): NotFoundError {
  return new NotFoundError('SLUICE_TRIGGER_NOT_FOUND', `Trigger ${triggerId} does not exist`);
}
