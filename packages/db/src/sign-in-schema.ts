/**
 * The table of sign-ins in flight (migration 018), kept apart from `schema.ts` for its size.
 * @module
 */
import type { ColumnType, RawBuilder } from 'kysely';

/** What a sign-in keeps: texts, and one level of nested texts (the CLI's request). */
export type SignInFlowData = { [key: string]: string | { [key: string]: string } };

/** A sign-in in flight or a CLI's one-time code, under the SHA-256 of its key; used once. */
export interface SignInFlowsTable {
  key_hash: string;
  kind: 'oidc' | 'cli-code';
  data: ColumnType<SignInFlowData, RawBuilder<SignInFlowData>, RawBuilder<SignInFlowData>>;
  expires_at: Date;
}
