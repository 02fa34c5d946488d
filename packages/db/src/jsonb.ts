/**
 * Writing jsonb columns. `pg` serialises a plain object as JSON but a JavaScript array as a
 * PostgreSQL array literal (`{a,b}`), which jsonb rejects; going through `jsonb()` for every
 * jsonb value avoids the difference, and the `Schema` types require it.
 * @module
 */
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';

/** `value` as a jsonb parameter, typed so it fits a `Jsonb<T>` column. */
export function jsonb<T>(value: T): RawBuilder<T> {
  return sql<T>`${JSON.stringify(value)}::jsonb`;
}
