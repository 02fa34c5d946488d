/**
 * The `webhook_deliveries` table's one owner: which delivery ids of a git trigger have started
 * a build, so the same delivery sent again (a host's retry, a "Redeliver" click, a replayed
 * request) starts none. An id is remembered for `DELIVERY_WINDOW_MS`; older rows are pruned and
 * a claim of an expired id succeeds again. A claim and the build it starts share one
 * transaction: a concurrent copy of the delivery waits on the primary key until the first
 * commits, then reads the first build's id.
 * @module
 */
import type { Executor } from '@sluice/db';

/** 24 hours: longer than any git host keeps retrying a delivery on its own. */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface DeliveryKey {
  triggerId: string;
  deliveryId: string;
}

export type DeliveryClaim =
  { claimed: true } | { claimed: false; buildId: string | null; receivedAt: Date };

/** Claims the delivery at `now`, or says when it was first received and what it started. */
export async function claimDelivery(
  trx: Executor,
  key: DeliveryKey,
  now: Date,
): Promise<DeliveryClaim> {
  const cutoff = new Date(now.getTime() - DELIVERY_WINDOW_MS);
  const claimed = await trx
    .insertInto('webhook_deliveries')
    .values({ trigger_id: key.triggerId, delivery_id: key.deliveryId, received_at: now })
    .onConflict((conflict) =>
      conflict
        .columns(['trigger_id', 'delivery_id'])
        // A row older than the window is a delivery forgotten: this one counts as new.
        .doUpdateSet({ received_at: now, build_id: null })
        .where('webhook_deliveries.received_at', '<', cutoff),
    )
    .returning('trigger_id')
    .executeTakeFirst();
  if (claimed !== undefined) return { claimed: true };
  const first = await trx
    .selectFrom('webhook_deliveries')
    .select(['build_id', 'received_at'])
    .where('trigger_id', '=', key.triggerId)
    .where('delivery_id', '=', key.deliveryId)
    .executeTakeFirst();
  return {
    claimed: false,
    buildId: first?.build_id ?? null,
    receivedAt: first?.received_at ?? now,
  };
}

/** Records the build a claimed delivery started, in the claim's transaction. */
export async function recordDeliveryBuild(
  trx: Executor,
  key: DeliveryKey,
  buildId: string,
): Promise<void> {
  await trx
    .updateTable('webhook_deliveries')
    .set({ build_id: buildId })
    .where('trigger_id', '=', key.triggerId)
    .where('delivery_id', '=', key.deliveryId)
    .execute();
}

/** Deletes every delivery received before the window; returns how many. */
export async function pruneDeliveries(db: Executor, now: Date): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('received_at', '<', new Date(now.getTime() - DELIVERY_WINDOW_MS))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
