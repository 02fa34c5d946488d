/**
 * Writing jsonb columns from service code: whole values, and `timing` merged key by key in SQL
 * so concurrent writers (scheduler, agent, engine) never overwrite each other's stamps.
 * @module
 */
import { jsonb, sql } from '@sluice/db';
import type { JsonObject } from '@sluice/db';

export function json(value: unknown) {
  return jsonb(value as JsonObject);
}

/** `timing || patch`: later stamps of the same name win. */
export function mergeTiming(patch: Record<string, string>) {
  return sql<JsonObject>`timing || ${JSON.stringify(patch)}::jsonb`;
}

/** `patch || timing`: keeps a stamp that is already there (first step started, ...). */
export function keepFirstTiming(patch: Record<string, string>) {
  return sql<JsonObject>`${JSON.stringify(patch)}::jsonb || timing`;
}
