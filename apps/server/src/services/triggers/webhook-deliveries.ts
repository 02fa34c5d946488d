/**
 * The one owner of `webhook_deliveries` and `webhook_bodies`: what a git trigger has already
 * started a build for, so the same delivery sent again (a host's retry, a "Redeliver" click, a
 * replayed request) starts none. Two keys, each remembered for `DELIVERY_WINDOW_MS`: the
 * delivery id the host sends (`webhook_deliveries`), and the SHA-256 of the signed body
 * (`webhook_bodies`, migration 016), since the id is not signed: a replay with a new id, or
 * none, is still the same signed bytes. Older rows are pruned, and a claim of an expired key
 * succeeds again. A claim and the build it starts share one transaction: a concurrent copy of
 * the delivery waits on the primary key until the first commits, then reads the first build's
 * id.
 * @module
 */
import { sql } from '@sluice/db';
import type { Executor } from '@sluice/db';

/** 24 hours: longer than any git host keeps retrying a delivery on its own. */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What a delivery is known by: its id as the host sent it, or its signed body's digest. */
export interface DeliveryKey {
  triggerId: string;
  kind: 'delivery-id' | 'body';
  /** The delivery id, or the body's SHA-256 in hex. */
  value: string;
}

export type DeliveryClaim =
  { claimed: true } | { claimed: false; buildId: string | null; receivedAt: Date };

const TABLES = {
  'delivery-id': { table: 'webhook_deliveries', column: 'delivery_id' },
  body: { table: 'webhook_bodies', column: 'digest' },
} as const;

function place(key: DeliveryKey) {
  const { table, column } = TABLES[key.kind];
  return { table: sql.table(table), column: sql.ref(column) };
}

/** Claims the key at `now`, or says when it was first received and what it started. */
export async function claimDelivery(
  trx: Executor,
  key: DeliveryKey,
  now: Date,
): Promise<DeliveryClaim> {
  const { table, column } = place(key);
  const cutoff = new Date(now.getTime() - DELIVERY_WINDOW_MS);
  // A row older than the window is a delivery forgotten: this one counts as new.
  const claimed = await sql<{ trigger_id: string }>`
    insert into ${table} (trigger_id, ${column}, received_at)
    values (${key.triggerId}, ${key.value}, ${now})
    on conflict (trigger_id, ${column}) do update set received_at = ${now}, build_id = null
    where ${table}.received_at < ${cutoff}
    returning trigger_id`.execute(trx);
  if (claimed.rows.length > 0) return { claimed: true };
  const first = await sql<{ build_id: string | null; received_at: Date | string }>`
    select build_id, received_at from ${table}
    where trigger_id = ${key.triggerId} and ${column} = ${key.value}`.execute(trx);
  const row = first.rows[0];
  return {
    claimed: false,
    buildId: row?.build_id ?? null,
    receivedAt: row === undefined ? now : new Date(row.received_at),
  };
}

/** Records the build a claimed key started, in the claim's transaction. */
export async function recordDeliveryBuild(
  trx: Executor,
  key: DeliveryKey,
  buildId: string,
): Promise<void> {
  const { table, column } = place(key);
  await sql`update ${table} set build_id = ${buildId}
    where trigger_id = ${key.triggerId} and ${column} = ${key.value}`.execute(trx);
}

/** Deletes every key received before the window, of both kinds; returns how many. */
export async function pruneDeliveries(db: Executor, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - DELIVERY_WINDOW_MS);
  let pruned = 0;
  for (const { table } of Object.values(TABLES)) {
    const result = await db.deleteFrom(table).where('received_at', '<', cutoff).executeTakeFirst();
    pruned += Number(result.numDeletedRows);
  }
  return pruned;
}
