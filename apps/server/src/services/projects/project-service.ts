/**
 * Projects and pipelines. A pipeline's YAML is validated with @sluice/pipeline when saved and
 * refused with 422 listing every problem with line:column; a pipeline whose definition lives in
 * its repository (`specTemplate`) stores where, and each build's engine reads and reports it,
 * checked here the same way (`checkDefinition`). Secret variables are encrypted at rest with the
 * server key and never returned.
 * @module
 */
import { ConflictError, InputError, NotFoundError } from '@sluice/errors';
import { decryptSecret, encryptSecret } from '@sluice/pki';
import { jsonb, violatedConstraint } from '@sluice/db';
import type { Executor, JsonObject, ProjectRow } from '@sluice/db';
import { LIMITS } from '@sluice/protocol';
import type { Pipeline, Project, Retention, SpecTemplate } from '@sluice/protocol';
import type { z } from 'zod';
import type { CreatePipeline, PipelineValidation, UpdatePipeline } from '@sluice/protocol';
import { invalidDocument } from '../parsing/document-issues.js';
import { assertUnchanged } from './pipeline-version.js';
import type { ParsePool, PipelineParseJob, PipelineParseResult } from '../parsing/parse-pool.js';
import { isoTime } from '../server-context.js';
import { retentionOf } from './pipeline-retention.js';
import type { ServerContext } from '../server-context.js';
import type { StepTypeService } from '../settings/step-type-service.js';

type CreatePipelineInput = z.output<typeof CreatePipeline>;
type UpdatePipelineInput = z.output<typeof UpdatePipeline>;

export class ProjectService {
  readonly #ctx: ServerContext;
  readonly #stepTypes: StepTypeService;
  readonly #parser: ParsePool;

  constructor(ctx: ServerContext, stepTypes: StepTypeService, parser: ParsePool) {
    this.#ctx = ctx;
    this.#stepTypes = stepTypes;
    this.#parser = parser;
  }

  async listProjects(accountId: string): Promise<Project[]> {
    const rows = await this.#ctx.database.db
      .selectFrom('projects')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('name')
      .execute();
    return rows.map(toProject);
  }

  async createProject(accountId: string, name: string): Promise<Project> {
    const row = await this.#ctx.database.db
      .insertInto('projects')
      .values({ id: this.#ctx.ids.next('prj'), account_id: accountId, name })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(
        alreadyExists('projects', () => {
          return new ConflictError('SLUICE_PROJECT_EXISTS', `Project ${name} already exists`, {
            hint: `Its pipelines: sluice get pipelines --project ${name}`,
          });
        }),
      );
    return toProject(row);
  }

  async getProject(accountId: string, name: string): Promise<Project> {
    const row = await this.#projectRow(this.#ctx.database.db, accountId, name);
    return toProject(row);
  }

  async #projectRow(executor: Executor, accountId: string, name: string) {
    const row = await executor
      .selectFrom('projects')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('name', '=', name)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError('SLUICE_PROJECT_NOT_FOUND', `Project "${name}" does not exist`);
    return row;
  }

  async listPipelines(accountId: string, project: string): Promise<Pipeline[]> {
    const projectRow = await this.#projectRow(this.#ctx.database.db, accountId, project);
    const ids = await this.#ctx.database.db
      .selectFrom('pipelines')
      .select('id')
      .where('project_id', '=', projectRow.id)
      .orderBy('name')
      .execute();
    return Promise.all(ids.map((r) => this.getPipeline(accountId, r.id)));
  }

  async createPipeline(
    accountId: string,
    project: string,
    input: CreatePipelineInput,
  ): Promise<Pipeline> {
    const definition = definitionOf(input);
    if (definition === undefined)
      throw new InputError(
        'SLUICE_PIPELINE_DEFINITION_MISSING',
        'A pipeline needs its definition: `yaml`, or `specTemplate` to read it from its repository',
        { hint: 'sluice create pipeline -f FILE, or --from-repo OWNER/NAME' },
      );
    if (definition.yaml !== '')
      await this.#assertValidYaml(accountId, definition.yaml, `${project}/${input.name}`);
    const id = this.#ctx.ids.next('pip');
    const exists = () =>
      new ConflictError(
        'SLUICE_PIPELINE_EXISTS',
        `Pipeline ${project}/${input.name} already exists`,
        { hint: `Change it with: sluice apply -f, or PATCH /api/v1/pipelines/{id}` },
      );
    await this.#ctx.database.db
      .transaction()
      .execute(async (trx) => {
        const projectRow = await this.#projectRow(trx, accountId, project);
        await trx
          .insertInto('pipelines')
          .values({
            id,
            account_id: accountId,
            project_id: projectRow.id,
            name: input.name,
            yaml: definition.yaml,
            spec_template: definition.specTemplate === null ? null : jsonb(definition.specTemplate),
            runtime_environment: input.runtimeEnvironment ?? null,
            max_concurrent_builds: input.maxConcurrentBuilds ?? null,
            retention: storedRetention(input.retention ?? null),
          })
          .execute();
        for (const [name, variable] of Object.entries(input.variables ?? {}))
          await this.#writeVariable(trx, id, name, variable);
      })
      .catch(alreadyExists('pipelines', exists));
    return this.getPipeline(accountId, id);
  }

  async updatePipeline(
    accountId: string,
    pipelineId: string,
    input: UpdatePipelineInput,
  ): Promise<Pipeline> {
    const current = await this.pipelineRow(accountId, pipelineId);
    // Either replaces the other: a pipeline's definition is stored or in its repository.
    const definition = definitionOf(input) ?? {
      yaml: current.yaml,
      specTemplate: current.spec_template,
    };
    if (input.yaml !== undefined) await this.#assertValidYaml(accountId, input.yaml, current.name);
    await this.#ctx.database.db.transaction().execute(async (trx) => {
      if (input.ifUpdatedAt !== undefined)
        await assertUnchanged(trx, {
          pipelineId,
          base: input.ifUpdatedAt,
          current: () => this.getPipeline(accountId, pipelineId, trx),
        });
      await trx
        .updateTable('pipelines')
        .set({
          yaml: definition.yaml,
          spec_template: definition.specTemplate === null ? null : jsonb(definition.specTemplate),
          runtime_environment:
            input.runtimeEnvironment === undefined
              ? current.runtime_environment
              : input.runtimeEnvironment,
          max_concurrent_builds:
            input.maxConcurrentBuilds === undefined
              ? current.max_concurrent_builds
              : input.maxConcurrentBuilds,
          ...(input.retention === undefined ? {} : { retention: storedRetention(input.retention) }),
          updated_at: new Date(this.#ctx.clock()),
        })
        .where('id', '=', pipelineId)
        .execute();
      for (const [name, variable] of Object.entries(input.variables ?? {}))
        await this.#writeVariable(trx, pipelineId, name, variable);
      const removed = (input.removeVariables ?? []).filter(
        (name) => !(name in (input.variables ?? {})),
      );
      if (removed.length > 0)
        await trx
          .deleteFrom('pipeline_variables')
          .where('pipeline_id', '=', pipelineId)
          .where('name', 'in', removed)
          .execute();
    });
    return this.getPipeline(accountId, pipelineId);
  }

  async getPipelineByName(accountId: string, project: string, name: string): Promise<Pipeline> {
    const projectRow = await this.#projectRow(this.#ctx.database.db, accountId, project);
    const row = await this.#ctx.database.db
      .selectFrom('pipelines')
      .select('id')
      .where('project_id', '=', projectRow.id)
      .where('name', '=', name)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError(
        'SLUICE_PIPELINE_NOT_FOUND',
        `Pipeline "${name}" does not exist in project "${project}"`,
        { hint: `List the project's pipelines with: sluice get pipelines --project ${project}` },
      );
    return this.getPipeline(accountId, row.id);
  }

  async setVariable(
    accountId: string,
    pipelineId: string,
    name: string,
    variable: { value: string; secret: boolean },
  ): Promise<Pipeline> {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new InputError(
        'SLUICE_VARIABLE_NAME_INVALID',
        `Variable name "${name}" must be letters, digits and "_", not starting with a digit`,
      );
    await this.pipelineRow(accountId, pipelineId);
    await this.#writeVariable(this.#ctx.database.db, pipelineId, name, variable);
    return this.getPipeline(accountId, pipelineId);
  }

  async #writeVariable(
    executor: Executor,
    pipelineId: string,
    name: string,
    variable: { value: string; secret: boolean },
  ): Promise<void> {
    const row = {
      pipeline_id: pipelineId,
      name,
      is_secret: variable.secret,
      value: variable.secret ? null : variable.value,
      encrypted_value: variable.secret
        ? encryptSecret(variable.value, this.#ctx.secretKey, {
            associatedData: `${pipelineId}/${name}`,
          })
        : null,
    };
    await executor
      .insertInto('pipeline_variables')
      .values(row)
      .onConflict((oc) => oc.columns(['pipeline_id', 'name']).doUpdateSet(row))
      .execute();
  }

  /** `executor` lets a caller read the pipeline inside its own transaction. */
  async pipelineRow(
    accountId: string,
    pipelineId: string,
    executor: Executor = this.#ctx.database.db,
  ) {
    const row = await executor
      .selectFrom('pipelines')
      .innerJoin('projects', 'projects.id', 'pipelines.project_id')
      .selectAll('pipelines')
      .select('projects.name as project_name')
      .where('pipelines.id', '=', pipelineId)
      .where('pipelines.account_id', '=', accountId)
      .executeTakeFirst();
    if (row === undefined)
      throw new NotFoundError('SLUICE_PIPELINE_NOT_FOUND', `Pipeline ${pipelineId} does not exist`);
    return row;
  }

  async getPipeline(
    accountId: string,
    pipelineId: string,
    executor: Executor = this.#ctx.database.db,
  ): Promise<Pipeline> {
    const row = await this.pipelineRow(accountId, pipelineId, executor);
    const variables = await executor
      .selectFrom('pipeline_variables')
      .selectAll()
      .where('pipeline_id', '=', pipelineId)
      .orderBy('name')
      .execute();
    return {
      id: row.id,
      project: row.project_name,
      name: row.name,
      yaml: row.yaml,
      specTemplate: row.spec_template === null ? null : toSpecTemplate(row.spec_template),
      runtimeEnvironment: row.runtime_environment,
      maxConcurrentBuilds: row.max_concurrent_builds,
      retention: row.retention === null ? null : retentionOf(row.retention),
      variables: variables.map((v) => ({
        name: v.name,
        value: v.is_secret ? null : v.value,
        secret: v.is_secret,
      })),
      createdAt: isoTime(row.created_at) ?? '',
      updatedAt: isoTime(row.updated_at) ?? '',
    };
  }

  /** Plain variables and decrypted secrets, for a build's engine only. */
  async variablesForBuild(
    pipelineId: string,
  ): Promise<{ variables: Record<string, string>; secrets: Record<string, string> }> {
    const rows = await this.#ctx.database.db
      .selectFrom('pipeline_variables')
      .selectAll()
      .where('pipeline_id', '=', pipelineId)
      .execute();
    const variables: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    for (const row of rows) {
      if (row.is_secret && row.encrypted_value !== null)
        secrets[row.name] = decryptSecret(row.encrypted_value, this.#ctx.secretKey, {
          associatedData: `${pipelineId}/${row.name}`,
        });
      else if (row.value !== null) variables[row.name] = row.value;
    }
    return { variables, secrets };
  }

  /**
   * Parses a pipeline, off the request path when it is large (`ParsePool`): its issues,
   * and its steps as a build's rows.
   */
  parsePipeline(job: PipelineParseJob): Promise<PipelineParseResult> {
    return this.#parser.parse(job);
  }

  /** Every problem of a pipeline's YAML, without saving it: 413 over the size limit. */
  async validatePipeline(
    accountId: string,
    yaml: string,
  ): Promise<z.infer<typeof PipelineValidation>> {
    assertYamlSize(yaml);
    const stepTypes = await this.#stepTypes.documents(accountId);
    const parsed = await this.parsePipeline({ yaml, file: 'codefresh.yml', stepTypes });
    const issues = parsed.issues.map(({ severity, code, message, path, line, column }) => {
      return { severity, code, message, path: [...path], line, column };
    });
    return {
      ok: parsed.ok,
      issues: issues.slice(0, LIMITS.documentIssues),
      issueCount: issues.length,
    };
  }

  /**
   * A definition read from the repository at `file`, checked as a stored one is (413, 422 with
   * each problem at `file:line:column`): its stages and steps for the build.
   */
  async checkDefinition(
    accountId: string,
    yaml: string,
    file: string,
  ): Promise<Pick<PipelineParseResult, 'steps' | 'stages'>> {
    assertYamlSize(yaml);
    const stepTypes = await this.#stepTypes.documents(accountId);
    const parsed = await this.parsePipeline({ yaml, file, stepTypes });
    if (!parsed.ok)
      throw invalidDocument({
        code: 'SLUICE_PIPELINE_INVALID',
        what: file,
        issues: parsed.issues,
        details: { unprocessable: true },
      });
    return { steps: parsed.steps, stages: parsed.stages };
  }

  /** 413 over the size limit; else 422 with every problem, each with line and column. */
  async #assertValidYaml(accountId: string, yaml: string, file: string): Promise<void> {
    assertYamlSize(yaml);
    const stepTypes = await this.#stepTypes.documents(accountId);
    const parsed = await this.parsePipeline({ yaml, file, stepTypes });
    if (parsed.ok) return;
    throw invalidDocument({
      code: 'SLUICE_PIPELINE_INVALID',
      what: 'The pipeline YAML',
      issues: parsed.issues,
      details: { unprocessable: true },
    });
  }
}

/**
 * The definition a create or update gives: stored YAML, or where in the repository (then the
 * stored YAML is empty); undefined when it gives neither, a 400 when both.
 */
function definitionOf(input: {
  yaml?: string | undefined;
  specTemplate?: SpecTemplate | undefined;
}): { yaml: string; specTemplate: JsonObject | null } | undefined {
  if (input.yaml !== undefined && input.specTemplate !== undefined)
    throw new InputError(
      'SLUICE_PIPELINE_DEFINITION_TWICE',
      'Give the pipeline `yaml` or `specTemplate`, not both: its definition is stored or in its repository',
    );
  if (input.yaml !== undefined) return { yaml: input.yaml, specTemplate: null };
  if (input.specTemplate !== undefined)
    return { yaml: '', specTemplate: { ...input.specTemplate } };
  return undefined;
}

/** A stored source in the order Codefresh writes its fields (jsonb keeps its own). */
function toSpecTemplate(stored: JsonObject): SpecTemplate {
  const text = (key: string) => (typeof stored[key] === 'string' ? stored[key] : undefined);
  const revision = text('revision');
  const context = text('context');
  return {
    location: 'git',
    repo: text('repo') ?? '',
    path: text('path') ?? 'codefresh.yml',
    ...(revision === undefined ? {} : { revision }),
    ...(context === undefined ? {} : { context }),
  };
}

/**
 * A `catch` that words a unique violation of `table` as `worded()` says (the name the caller
 * gave); any other error goes on unchanged.
 */
function alreadyExists(table: string, worded: () => Error) {
  return (err: unknown): never => {
    const violated = violatedConstraint(err);
    if (violated?.code === 'SLUICE_DB_CONFLICT' && violated.table === table) throw worded();
    throw err;
  };
}

/** A retention as stored: only the limits it sets; null: the server's default. */
function storedRetention(retention: Retention | null) {
  if (retention === null) return null;
  const limits: JsonObject = {};
  if (retention.days != null) limits['days'] = retention.days;
  if (retention.builds != null) limits['builds'] = retention.builds;
  return jsonb(limits);
}

function toProject(row: ProjectRow): Project {
  return { id: row.id, name: row.name, createdAt: isoTime(row.created_at) ?? '' };
}

/** 413 over the size limit, before anything reads it. */
function assertYamlSize(yaml: string): void {
  const bytes = Buffer.byteLength(yaml, 'utf8');
  if (bytes > LIMITS.pipelineYamlBytes)
    throw new InputError(
      'SLUICE_PIPELINE_TOO_LARGE',
      `The pipeline YAML is ${bytes} bytes; the limit is ${LIMITS.pipelineYamlBytes} bytes (1 MiB)`,
      {
        details: { tooLarge: true, bytes, limit: LIMITS.pipelineYamlBytes },
        hint: 'Split the pipeline, or move repeated steps into a step type (docs/step-types.md)',
      },
    );
}
