/**
 * Users' passwords, hashed with scrypt (node:crypto's, asynchronous: the work runs on libuv's
 * pool, off the event loop) with a random salt per password and the parameters stored beside
 * the hash (`scrypt$N$r$p$salt$hash`), so they can be raised later without breaking old ones.
 * Checking a password of a user who does not exist, or has none, costs the same scrypt run as
 * checking a real one (against a dummy hash), so the time of an answer does not tell whether a
 * name exists. The hasher counts its runs and their cost, which is how tests show that.
 * @module
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';

export interface ScryptParams {
  /** CPU and memory cost (a power of two). */
  N: number;
  r: number;
  p: number;
}

/** OWASP's minimum for scrypt (N=2^17, r=8, p=1): 128 MiB and about 100 ms a check. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

export interface PasswordWork {
  /** scrypt runs so far. */
  runs: number;
  /** The sum of N·r·p over them: the work done, whatever the parameters. */
  cost: number;
}

export class PasswordHasher {
  readonly #params: ScryptParams;
  readonly #work: PasswordWork = { runs: 0, cost: 0 };
  /** What a missing hash is checked against: the same parameters, a key nothing matches. */
  readonly #dummy: { params: ScryptParams; salt: Buffer; key: Buffer };

  constructor(params: ScryptParams = DEFAULT_SCRYPT) {
    this.#params = params;
    this.#dummy = { params, salt: randomBytes(SALT_BYTES), key: randomBytes(KEY_LENGTH) };
  }

  get work(): Readonly<PasswordWork> {
    return { ...this.#work };
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const { N, r, p } = this.#params;
    const key = await this.#scrypt(password, salt, this.#params);
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  /**
   * Whether `password` is the one hashed in `stored`. With no stored hash (no such user, or
   * one without a password) it is checked against a dummy one of the same cost, and false.
   */
  async verify(stored: string | null, password: string): Promise<boolean> {
    const parsed = stored === null ? undefined : parseHash(stored);
    if (parsed === undefined) {
      await this.#scrypt(password, this.#dummy.salt, this.#dummy.params);
      return false;
    }
    const key = await this.#scrypt(password, parsed.salt, parsed.params);
    return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  }

  #scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
    this.#work.runs += 1;
    this.#work.cost += params.N * params.r * params.p;
    const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
    return new Promise((resolve, reject) =>
      scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) =>
        err ? reject(err) : resolve(key),
      ),
    );
  }
}

function parseHash(
  stored: string,
): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return undefined;
  return {
    params: { N: Number(n), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt, 'base64'),
    key: Buffer.from(key, 'base64'),
  };
}
