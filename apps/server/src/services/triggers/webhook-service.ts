/**
 * A git host's webhook delivery → maybe a build. The trigger is loaded (unknown and disabled
 * look the same: 404), the raw body is verified against the trigger's decrypted secret (401
 * with one fixed message, whatever was wrong), then parsed. A ping, an event the trigger does
 * not listen to, another repository or a branch outside the filter answer 200 with the reason;
 * anything else creates a `webhook` build (202), once per delivery id: the same delivery sent
 * again within 24 hours answers 200 `duplicate` with the first build's id
 * (`webhook-deliveries.ts`). Logs carry the trigger id, provider, event and
 * outcome, never the secret, the signature or the payload.
 * @module
 */
import { AuthenticationError } from '@sluice/errors';
import { decryptSecret } from '@sluice/pki';
import {
  matchesBranchFilter,
  parseWebhook,
  verifyWebhook,
  webhookDeliveryId,
} from '@sluice/triggers';
import type { GitProvider, WebhookEvent, WebhookHeaders } from '@sluice/triggers';
import type { TriggerRow } from '@sluice/db';
import type { Logger } from '@sluice/log';
import type { TriggerEvent, WebhookResult } from '@sluice/protocol';
import type { BuildService, CreateBuildInput } from '../builds/build-service.js';
import type { ServerContext } from '../server-context.js';
import { secretAssociatedData, userVariables } from './trigger-rows.js';
import type { TriggerService } from './trigger-service.js';
import { claimDelivery, pruneDeliveries, recordDeliveryBuild } from './webhook-deliveries.js';
import type { DeliveryClaim } from './webhook-deliveries.js';

export interface ReceiveWebhookInput {
  triggerId: string;
  headers: WebhookHeaders;
  /** The body exactly as received: the signature covers these bytes. */
  rawBody: Uint8Array;
}

type BuildEvent = Extract<WebhookEvent, { kind: 'push' | 'pull_request' }>;

/** What a verified delivery means for its trigger. */
export type WebhookDecision =
  | { outcome: 'ping' }
  | { outcome: 'ignored'; reason: string }
  | { outcome: 'build'; event: BuildEvent };

export class WebhookService {
  readonly #ctx: ServerContext;
  readonly #triggers: TriggerService;
  readonly #builds: BuildService;
  readonly #log: Logger;

  constructor(ctx: ServerContext, triggers: TriggerService, builds: BuildService) {
    this.#ctx = ctx;
    this.#triggers = triggers;
    this.#builds = builds;
    this.#log = ctx.log;
  }

  async receive(input: ReceiveWebhookInput): Promise<WebhookResult> {
    const trigger = await this.#triggers.gitTrigger(input.triggerId);
    const provider = trigger.provider as GitProvider;
    const log = this.#log.child({ triggerId: trigger.id, provider });
    const verified = verifyWebhook({
      provider,
      headers: input.headers,
      rawBody: input.rawBody,
      secret: this.#secret(trigger),
    });
    if (!verified.ok) {
      log.warn('webhook rejected', { problem: verified.problem });
      throw new AuthenticationError(
        'SLUICE_WEBHOOK_SIGNATURE_INVALID',
        `Webhook delivery for trigger ${trigger.id} is not signed with its secret`,
      );
    }
    const event = parseWebhook({ provider, headers: input.headers, body: input.rawBody });
    const decision = decideWebhook(trigger, event);
    if (decision.outcome !== 'build') {
      log.info('webhook received', { event: event.event, outcome: decision.outcome });
      return decision.outcome === 'ping' ? { outcome: 'ping' } : decision;
    }
    const deliveryId = webhookDeliveryId(provider, input.headers);
    const result = await this.#startBuild(trigger, decision.event, deliveryId);
    log.info('webhook received', {
      event: event.event,
      outcome: result.outcome,
      buildId: result.buildId,
      deliveryId,
    });
    return result;
  }

  /**
   * Creates the build, once per delivery id: the claim of the id, the build and the record of
   * which build it started commit together. A host that sends no id gets a build every time.
   */
  async #startBuild(
    trigger: TriggerRow,
    event: BuildEvent,
    deliveryId: string | undefined,
  ): Promise<WebhookResult> {
    const input = buildInput(trigger, event);
    if (deliveryId === undefined) {
      const build = await this.#builds.create(input);
      return { outcome: 'build-created', buildId: build.id };
    }
    const key = { triggerId: trigger.id, deliveryId };
    const now = new Date(this.#ctx.clock());
    const result = await this.#builds.transaction(
      async (trx) => {
        const claim = await claimDelivery(trx, key, now);
        if (!claim.claimed) return duplicate(deliveryId, claim);
        const buildId = await this.#builds.insert(trx, input);
        await recordDeliveryBuild(trx, key, buildId);
        return { outcome: 'build-created' as const, buildId };
      },
      { translateErrors: true },
    );
    if (result.outcome === 'build-created') await this.#prune(now);
    return result;
  }

  /** Best effort: a failed prune only keeps old ids a little longer. */
  async #prune(now: Date): Promise<void> {
    try {
      const pruned = await pruneDeliveries(this.#ctx.database.db, now);
      if (pruned > 0) this.#log.debug('webhook deliveries pruned', { pruned });
    } catch (err) {
      this.#log.warn('webhook deliveries not pruned', { error: String(err) });
    }
  }

  #secret(trigger: TriggerRow): string {
    if (trigger.secret_encrypted === null) return '';
    return decryptSecret(trigger.secret_encrypted, this.#ctx.secretKey, {
      associatedData: secretAssociatedData(trigger.id),
    });
  }
}

/**
 * Pure: whether a verified event starts a build of this trigger. The branch filter applies to
 * the pushed branch, the pushed tag's name, or a pull request's head branch.
 */
function decideWebhook(
  trigger: Pick<TriggerRow, 'repo' | 'events' | 'branch_filter'>,
  event: WebhookEvent,
): WebhookDecision {
  switch (event.kind) {
    case 'ping':
      return { outcome: 'ping' };
    case 'ignored':
      return { outcome: 'ignored', reason: event.reason };
    case 'push':
    case 'pull_request':
      return checkEvent(trigger, event);
  }
}

function checkEvent(
  trigger: Pick<TriggerRow, 'repo' | 'events' | 'branch_filter'>,
  event: BuildEvent,
): WebhookDecision {
  const { facts } = event;
  const repo = `${facts.repoOwner ?? ''}/${facts.repoName ?? ''}`;
  if (trigger.repo !== null && repo.toLowerCase() !== trigger.repo.toLowerCase())
    return ignored(`Repository ${repo} is not this trigger's repository ${trigger.repo}`);
  const kind = triggerEventOf(event);
  if (!trigger.events.includes(kind))
    return ignored(
      `Event "${kind}" is not one of this trigger's events (${trigger.events.join(', ')})`,
    );
  const branch = facts.branch ?? '';
  const filter = trigger.branch_filter ?? '';
  if (!matchesBranchFilter(filter, branch))
    return ignored(`Branch "${branch}" does not match the trigger's branch filter ${filter}`);
  return { outcome: 'build', event };
}

function triggerEventOf(event: BuildEvent): TriggerEvent {
  if (event.kind === 'pull_request') return 'pull_request';
  return event.ref.type === 'tag' ? 'tag' : 'push';
}

function ignored(reason: string): WebhookDecision {
  return { outcome: 'ignored', reason };
}

function buildInput(trigger: TriggerRow, event: BuildEvent): CreateBuildInput {
  const { facts } = event;
  return {
    accountId: trigger.account_id,
    pipelineId: trigger.pipeline_id,
    trigger: 'webhook',
    initiator: facts.initiator,
    branch: facts.branch,
    revision: facts.revision,
    // The trigger's git integration clones its builds' repositories where a step names none.
    facts: {
      ...stringFacts(facts),
      ...(trigger.git_integration === null ? {} : { gitIntegration: trigger.git_integration }),
    },
    variables: { ...userVariables(trigger), ...event.variables },
  };
}

function duplicate(
  deliveryId: string,
  first: Extract<DeliveryClaim, { claimed: false }>,
): WebhookResult {
  const started =
    first.buildId === null ? 'its build no longer exists' : `it started build ${first.buildId}`;
  return {
    outcome: 'duplicate',
    ...(first.buildId === null ? {} : { buildId: first.buildId }),
    reason: `Delivery ${deliveryId} was already received at ${first.receivedAt.toISOString()}: ${started}`,
  };
}

/** Build facts are stored as strings; a webhook's are all strings or absent already. */
function stringFacts(facts: WebhookEvent['facts']): Record<string, string> {
  return Object.fromEntries(
    Object.entries(facts).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}
