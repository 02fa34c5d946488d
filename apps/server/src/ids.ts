/**
 * Ids and secrets for the control plane. Ids are time-ordered (so listing by id is listing by
 * creation) and carry a prefix naming what they identify; tokens are 240 random bits, shown once
 * and stored as a SHA-256 hash.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TokenKind } from '@sluice/protocol';

export type IdKind =
  'acc' | 'aud' | 'ses' | 'usr' | 'tok' | 'prj' | 'pip' | 'bld' | 'agt' | 'tsk' | 'trg';

export interface IdGenerator {
  next(kind: IdKind): string;
}

/** `bld_` + 10 chars of base36 milliseconds + 8 random base36 chars: sortable by creation time. */
export function createIdGenerator(clock: () => number = Date.now): IdGenerator {
  let last = '';
  let counter = 0;
  return {
    next(kind) {
      const time = clock().toString(36).padStart(10, '0');
      counter = time === last ? counter + 1 : 0;
      last = time;
      const random = randomBytes(6).readUIntBE(0, 6).toString(36).padStart(8, '0').slice(-8);
      return `${kind}_${time}${counter.toString(36).padStart(2, '0')}${random}`;
    },
  };
}

const TOKEN_PREFIX: Record<TokenKind, string> = {
  user: 'slu_u_',
  agent: 'slu_a_',
  engine: 'slu_e_',
};

export function newTokenValue(kind: TokenKind): string {
  return TOKEN_PREFIX[kind] + randomBytes(30).toString('base64url');
}

export function hashToken(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** What may be shown of a token: its kind prefix and a few characters. */
export function tokenDisplayPrefix(value: string): string {
  return value.slice(0, 12);
}
