/**
 * What a sign-in holds between two requests, kept server-side and used once: a single sign-on
 * in flight between the redirect to the identity provider and its callback (PKCE verifier,
 * state, nonce, where to go after), and the one-time code `sluice auth login` trades for a
 * token. Each is keyed by a random value the browser or the CLI carries, stored only as its
 * SHA-256; taking one deletes it in the same statement, so a replayed callback or code finds
 * nothing. Entries live minutes; expired ones are swept whenever a new one is put.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { jsonb } from '@sluice/db';
import type { SignInFlowData } from '@sluice/db';
import { hashToken } from '../../ids.js';
import type { ServerContext } from '../server-context.js';

export type SignInFlowKind = 'oidc' | 'cli-code';

export class SignInFlows {
  readonly #ctx: ServerContext;

  constructor(ctx: ServerContext) {
    this.#ctx = ctx;
  }

  /** Keeps `data` for `ttlMs`; the key to take it back with (shown once, stored hashed). */
  async put(kind: SignInFlowKind, data: SignInFlowData, ttlMs: number): Promise<string> {
    const key = randomBytes(32).toString('base64url');
    const now = this.#ctx.clock();
    const db = this.#ctx.database.db;
    await db.deleteFrom('sign_in_flows').where('expires_at', '<', new Date(now)).execute();
    await db
      .insertInto('sign_in_flows')
      .values({
        key_hash: hashToken(key),
        kind,
        data: jsonb(data),
        expires_at: new Date(now + ttlMs),
      })
      .execute();
    return key;
  }

  /** The data kept under `key`, once: undefined when unknown, of another kind, used or expired. */
  async take(kind: SignInFlowKind, key: string): Promise<SignInFlowData | undefined> {
    const row = await this.#ctx.database.db
      .deleteFrom('sign_in_flows')
      .where('key_hash', '=', hashToken(key))
      .where('kind', '=', kind)
      .returning(['data', 'expires_at'])
      .executeTakeFirst();
    if (row === undefined || row.expires_at.getTime() <= this.#ctx.clock()) return undefined;
    return row.data;
  }
}

/** A text field of a flow's data ('' when absent: the checks that use it then fail). */
export function flowText(data: SignInFlowData, key: string): string {
  const value = data[key];
  return typeof value === 'string' ? value : '';
}
