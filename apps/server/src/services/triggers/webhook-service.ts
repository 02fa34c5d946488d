/**
 * A git host's webhook delivery → maybe a build. The trigger is looked up from the path before
 * the body is read (unknown and disabled look the same: 404; `trigger`), the raw body is
 * verified against the trigger's decrypted secret (401 with one fixed message, whatever was
 * wrong), then parsed. A ping, an event the trigger does not listen to, another repository or a
 * branch outside the filter (matched off the event loop: `ParsePool.checkBranchFilter`) answer
 * 200 with the reason; anything else creates a `webhook` build (202), once per delivery: the
 * same signed body, or the same delivery id, sent again within 24 hours answers 200
 * `duplicate` with the first build's id (`webhook-deliveries.ts`). Logs carry the trigger id,
 * provider, event and outcome, never the secret, the signature or the payload.
 * @module
 */
import { createHash } from 'node:crypto';
import { AuthenticationError, InputError } from '@sluice/errors';
import { decryptSecret } from '@sluice/pki';
import {
  parseWebhook,
  TRIGGER_BRANCH_FILTER_INVALID,
  verifyWebhook,
  webhookDeliveryId,
} from '@sluice/triggers';
import type { GitProvider, WebhookEvent, WebhookHeaders } from '@sluice/triggers';
import type { TriggerRow } from '@sluice/db';
import type { Logger } from '@sluice/log';
import type { TriggerEvent, WebhookResult } from '@sluice/protocol';
import type { BuildService, CreateBuildInput } from '../builds/build-service.js';
import type { ParsePool } from '../parsing/parse-pool.js';
import type { ServerContext } from '../server-context.js';
import { secretAssociatedData, userVariables } from './trigger-rows.js';
import type { TriggerService } from './trigger-service.js';
import { claimDelivery, pruneDeliveries, recordDeliveryBuild } from './webhook-deliveries.js';
import type { DeliveryClaim, DeliveryKey } from './webhook-deliveries.js';

export interface ReceiveWebhookInput {
  /** Looked up before the body was read (`WebhookService.trigger`). */
  trigger: TriggerRow;
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
  readonly #parser: ParsePool;
  readonly #log: Logger;

  constructor(
    ctx: ServerContext,
    services: { triggers: TriggerService; builds: BuildService; parser: ParsePool },
  ) {
    this.#ctx = ctx;
    this.#triggers = services.triggers;
    this.#builds = services.builds;
    this.#parser = services.parser;
    this.#log = ctx.log;
  }

  /** The enabled git trigger of a webhook's path: 404 `SLUICE_TRIGGER_NOT_FOUND` otherwise. */
  trigger(triggerId: string): Promise<TriggerRow> {
    return this.#triggers.gitTrigger(triggerId);
  }

  async receive(input: ReceiveWebhookInput): Promise<WebhookResult> {
    const { trigger } = input;
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
    let decision = decideWebhook(trigger, event);
    if (decision.outcome === 'build')
      decision = await this.#branchDecision(trigger, decision.event);
    if (decision.outcome !== 'build') {
      log.info('webhook received', { event: event.event, outcome: decision.outcome });
      return decision.outcome === 'ping' ? { outcome: 'ping' } : decision;
    }
    const deliveryId = webhookDeliveryId(provider, input.headers);
    const digest = createHash('sha256').update(input.rawBody).digest('hex');
    const result = await this.#startBuild(trigger, decision.event, { deliveryId, digest });
    log.info('webhook received', {
      event: event.event,
      outcome: result.outcome,
      buildId: result.buildId,
      deliveryId,
    });
    return result;
  }

  /** The pushed branch against the trigger's filter, matched off the event loop. */
  async #branchDecision(trigger: TriggerRow, event: BuildEvent): Promise<WebhookDecision> {
    const branch = event.facts.branch ?? '';
    const filter = trigger.branch_filter ?? '';
    const answer = await this.#parser.checkBranchFilter(filter, branch);
    // A filter is checked when its trigger is saved; this is one saved before a check existed.
    if (!answer.ok) throw new InputError(TRIGGER_BRANCH_FILTER_INVALID, answer.message);
    if (answer.matches === true) return { outcome: 'build', event };
    return ignored(`Branch "${branch}" does not match the trigger's branch filter ${filter}`);
  }

  /**
   * Creates the build, once per signed body and once per delivery id: the claims of both, the
   * build and the record of which build they started commit together, or nothing does.
   */
  async #startBuild(
    trigger: TriggerRow,
    event: BuildEvent,
    delivery: { deliveryId: string | undefined; digest: string },
  ): Promise<WebhookResult> {
    const input = buildInput(trigger, event);
    // The id first: a host's own resend is answered in its words.
    const keys: DeliveryKey[] = [
      ...(delivery.deliveryId === undefined
        ? []
        : [{ triggerId: trigger.id, kind: 'delivery-id' as const, value: delivery.deliveryId }]),
      { triggerId: trigger.id, kind: 'body', value: delivery.digest },
    ];
    const now = new Date(this.#ctx.clock());
    let result: WebhookResult;
    try {
      result = await this.#builds.transaction(
        async (trx) => {
          for (const key of keys) {
            const claim = await claimDelivery(trx, key, now);
            // Thrown, so that a key claimed before it is rolled back with the rest.
            if (!claim.claimed) throw new Duplicate(duplicate(key, claim));
          }
          const buildId = await this.#builds.insert(trx, input);
          for (const key of keys) await recordDeliveryBuild(trx, key, buildId);
          return { outcome: 'build-created' as const, buildId };
        },
        { translateErrors: true },
      );
    } catch (err) {
      if (err instanceof Duplicate) return err.answer;
      throw err;
    }
    await this.#prune(now);
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
 * Pure: whether a verified event may start a build of this trigger, but for its branch filter
 * (`#branchDecision`), which applies to the pushed branch, the pushed tag's name, or a pull
 * request's head branch.
 */
function decideWebhook(
  trigger: Pick<TriggerRow, 'repo' | 'events'>,
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
  trigger: Pick<TriggerRow, 'repo' | 'events'>,
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

/** A claim refused: the answer to give, once the transaction is rolled back. */
class Duplicate extends Error {
  readonly answer: WebhookResult;
  constructor(answer: WebhookResult) {
    super('The delivery was already received');
    this.answer = answer;
  }
}

function duplicate(
  key: DeliveryKey,
  first: Extract<DeliveryClaim, { claimed: false }>,
): WebhookResult {
  const what =
    key.kind === 'body'
      ? `The same signed body (SHA-256 ${key.value.slice(0, 12)}…)`
      : `Delivery ${key.value}`;
  const started =
    first.buildId === null ? 'its build no longer exists' : `it started build ${first.buildId}`;
  return {
    outcome: 'duplicate',
    ...(first.buildId === null ? {} : { buildId: first.buildId }),
    reason: `${what} was already received at ${first.receivedAt.toISOString()}: ${started}`,
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
