/**
 * Commit statuses: a build of a commit (a webhook's, `run-pipeline --sha`, a restart's, or the
 * commit a repository-sourced build read its definition at) reports its state on that commit
 * through the git integration that names the repository (else the account's default), as
 * every CI does so that pull requests can require it: pending while queued, running, then
 * success, failure, error or cancelled, with the build's page and a context per pipeline
 * (SLUICE_COMMIT_STATUS_CONTEXT, `sluice/{project}/{pipeline}`). The build is tracked when it is
 * made, or when its engine reports the commit it read (`track`); a pass
 * (`startCommitStatusLoop`, every SLUICE_COMMIT_STATUS_INTERVAL_MS) sends each build whose
 * state differs from the one its host last took, the newest state only: a host that is down or
 * refuses is tried again with back-off, and never fails or delays the build. Rows are claimed
 * with `skip locked`, so replicas share the work without sending a state twice at once.
 * @module
 */
import { sql } from '@sluice/db';
import type { Executor, JsonObject } from '@sluice/db';
import { SERVER_DEFAULTS } from '@sluice/config/defaults';
import { claimCommitStatuses, specTemplateOf } from '../builds/build-rows.js';
import type { DueCommitStatus as DueRow } from '../builds/build-rows.js';
import type { BuildTracker, TrackedBuild } from '../builds/build-service.js';
import { describeError } from '@sluice/errors';
import type { Logger } from '@sluice/log';
import type {
  CommitStatusReport,
  EngineGitIntegration,
  GitIntegrationKind,
} from '@sluice/protocol';
import type { GitIntegrationService } from '../settings/git-integration-service.js';
import type { ServerContext } from '../server-context.js';
import { isoTime } from '../server-context.js';
import { reportsStatuses, statusRequest } from './commit-status-hosts.js';
import { startPassLoop } from '../pass-loop.js';
import type { PassLoop, PassLoopOptions } from '../pass-loop.js';
import type { CommitState } from './commit-status-hosts.js';

/** Builds sent per pass at most; the rest wait for the next. */
const BATCH = 20;
/** How long a claimed row is left to its pass before another may take it. */
const CLAIM_SECONDS = 60;
/** Tries of one state before the reporter gives up on the build (about a day of back-off). */
const MAX_ATTEMPTS = 300;
const REQUEST_TIMEOUT_MS = 10_000;

const FINAL_STATES: readonly CommitState[] = ['success', 'failure', 'error', 'cancelled'];

/** The repository a build's commit is in, and the integration named for it (else the default). */
interface StatusTarget {
  repo: string;
  integration: string | undefined;
}

const OWNER_NAME = /^[\w.-]+(?:\/[\w.-]+)+$/;

export class CommitStatusService implements BuildTracker {
  readonly #ctx: ServerContext;
  readonly #integrations: GitIntegrationService;

  constructor(ctx: ServerContext, integrations: GitIntegrationService) {
    this.#ctx = ctx;
    this.#integrations = integrations;
  }

  /**
   * Tracks a build of a commit whose repository is known and whose integration can report on
   * it: the webhook's repository and integration; else the pipeline's own repository (where its
   * definition is read, unless pinned to another revision) and the integration that reads it;
   * else the one repository of its git triggers. The integration defaults to the account's.
   * A build tracked twice (its definition read after it was made) keeps its first row.
   */
  async track(executor: Executor, build: TrackedBuild): Promise<void> {
    const sha = build.revision;
    if (!isCommitSha(sha)) return;
    const target = await statusTarget(executor, build);
    if (target === undefined) return;
    let query = executor
      .selectFrom('git_integrations')
      .select(['name', 'kind'])
      .where('account_id', '=', build.accountId);
    query =
      target.integration === undefined
        ? query.where('is_default', '=', true)
        : query.where('name', '=', target.integration);
    const integration = await query.executeTakeFirst();
    if (integration === undefined || !reportsStatuses(integration.kind as GitIntegrationKind))
      return;
    const template = this.#ctx.config.commitStatusContext ?? SERVER_DEFAULTS.commitStatusContext;
    await executor
      .insertInto('commit_statuses')
      .values({
        build_id: build.buildId,
        account_id: build.accountId,
        integration: integration.name,
        repo: target.repo,
        sha,
        context: template
          .replaceAll('{project}', build.project)
          .replaceAll('{pipeline}', build.pipeline),
      })
      .onConflict((oc) => oc.column('build_id').doNothing())
      .execute();
  }

  /** Sends the due builds' states; how many the hosts took. */
  async pass(log: Logger): Promise<number> {
    const due = await this.#claim();
    // Each account's integrations decrypted once a pass, not once a build.
    const integrations = new Map<string, Promise<EngineGitIntegration[]>>();
    const integrationsOf = (accountId: string) => {
      let found = integrations.get(accountId);
      if (found === undefined) {
        found = this.#integrations.forEngine(accountId);
        integrations.set(accountId, found);
      }
      return found;
    };
    let sent = 0;
    for (const row of due)
      if (await this.#send(row, await integrationsOf(row.account_id), log)) sent++;
    return sent;
  }

  /** What the build's commit was told, or null when it reports none. */
  async report(accountId: string, buildId: string): Promise<CommitStatusReport | null> {
    const row = await this.#ctx.database.db
      .selectFrom('commit_statuses')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('build_id', '=', buildId)
      .executeTakeFirst();
    if (row === undefined) return null;
    return {
      integration: row.integration,
      repo: row.repo,
      sha: row.sha,
      context: row.context,
      sent: (row.sent as { state: CommitState; at: string }[]).map((s) => ({ ...s })),
      attempts: row.attempts,
      lastError: row.last_error,
      // 'infinity' (done) comes back as Infinity or as text, as the driver reads it.
      nextAttemptAt: doneAt(row.next_attempt_at) ? null : isoTime(row.next_attempt_at),
    };
  }

  /** Due rows whose build's state moved on, claimed for CLAIM_SECONDS. */
  #claim(): Promise<DueRow[]> {
    return this.#ctx.database.db
      .transaction()
      .execute((trx) => claimCommitStatuses(trx, { batch: BATCH, claimSeconds: CLAIM_SECONDS }));
  }

  async #send(row: DueRow, integrations: EngineGitIntegration[], log: Logger): Promise<boolean> {
    const error = await this.#post(row, integrations).then(
      () => undefined,
      (err: unknown) => describeError(err),
    );
    const db = this.#ctx.database.db;
    if (error === undefined) {
      const final = FINAL_STATES.includes(row.state);
      await db
        .updateTable('commit_statuses')
        .set({
          sent_state: row.state,
          sent: sql<
            JsonObject[]
          >`sent || ${JSON.stringify([{ state: row.state, at: new Date(this.#ctx.clock()).toISOString() }])}::jsonb`,
          attempts: 0,
          last_error: null,
          // A final state is the last: the row is done. Else it is looked at again at once.
          next_attempt_at: final ? sql`'infinity'::timestamptz` : sql`now()`,
        })
        .where('build_id', '=', row.build_id)
        .execute();
      return true;
    }
    const attempts = row.attempts + 1;
    const delaySeconds = Math.min(300, 2 ** Math.min(attempts, 9));
    log.warn('a commit status was not taken; trying again later', {
      buildId: row.build_id,
      integration: row.integration,
      state: row.state,
      attempts,
      error,
    });
    await db
      .updateTable('commit_statuses')
      .set({
        attempts,
        last_error: error,
        next_attempt_at:
          attempts >= MAX_ATTEMPTS
            ? sql`'infinity'::timestamptz`
            : sql`now() + make_interval(secs => ${delaySeconds})`,
      })
      .where('build_id', '=', row.build_id)
      .execute();
    return false;
  }

  async #post(row: DueRow, integrations: EngineGitIntegration[]): Promise<void> {
    const integration = integrations.find((i) => i.name === row.integration);
    if (integration?.token === undefined)
      throw new Error(`git integration "${row.integration}" is gone or has no token`);
    const base = this.#ctx.config.publicUrl?.replace(/\/+$/, '') ?? '';
    const request = statusRequest(
      {
        kind: integration.kind,
        url: integration.url || null,
        username: integration.username ?? null,
        token: integration.token,
        repo: row.repo,
        sha: row.sha,
        context: row.context,
        targetUrl: `${base}/builds/${row.build_id}`,
        description: `Sluice build ${row.build_id}: ${row.state}`,
      },
      row.state,
    );
    if (request === undefined) throw new Error(`a ${integration.kind} host takes no statuses`);
    const response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`${request.url} answered ${response.status}`);
  }
}

/** A commit's id, abbreviated or whole (SHA-1 or SHA-256), rather than a branch or tag. */
export function isCommitSha(revision: string | null): revision is string {
  return revision !== null && /^[0-9a-f]{7,64}$/i.test(revision);
}

async function statusTarget(
  executor: Executor,
  build: TrackedBuild,
): Promise<StatusTarget | undefined> {
  const { repoOwner, repoName, gitIntegration } = build.facts;
  if (repoOwner && repoName)
    return { repo: `${repoOwner}/${repoName}`, integration: gitIntegration };
  const source = specTemplateOf(build.specTemplate);
  if (source !== null) {
    // Pinned: the definition's commit is not the one built. A clone URL names no host's repo.
    if (source.revision !== '' || !OWNER_NAME.test(source.repo)) return undefined;
    return { repo: source.repo, integration: source.context ?? undefined };
  }
  const triggers = await executor
    .selectFrom('triggers')
    .select(['repo', 'git_integration'])
    .where('pipeline_id', '=', build.pipelineId)
    .where('kind', '=', 'git')
    .execute();
  const repos = new Set(triggers.map((t) => `${t.repo ?? ''} ${t.git_integration ?? ''}`));
  const [only] = triggers;
  if (repos.size !== 1 || !only?.repo) return undefined;
  return { repo: only.repo, integration: only.git_integration ?? undefined };
}

function doneAt(next: unknown): boolean {
  return next === Infinity || String(next).toLowerCase() === 'infinity';
}

/** Runs a pass at once, then every `intervalMs`, one at a time. */
export function startCommitStatusLoop(
  service: CommitStatusService,
  options: PassLoopOptions,
): PassLoop {
  return startPassLoop(
    () => service.pass(options.log),
    'reporting commit statuses failed',
    options,
  );
}
