/**
 * Typed reads from an untrusted webhook payload by dotted path. A missing or mistyped required
 * field is an InputError that names the provider, the event and the field's full path, so a
 * malformed delivery is diagnosable from the error alone.
 * @module
 */
import { InputError } from '@sluice/errors';

export const WEBHOOK_PAYLOAD_INVALID = 'SLUICE_WEBHOOK_PAYLOAD_INVALID';

type Expected = 'a string' | 'a number or string' | 'a boolean' | 'an array' | 'an object';

export class PayloadReader {
  readonly #root: unknown;
  /** `GitHub push`, for messages. */
  readonly #source: string;
  readonly #prefix: string;

  private constructor(root: unknown, source: string, prefix: string) {
    this.#root = root;
    this.#source = source;
    this.#prefix = prefix;
  }

  /** The payload must be a JSON object. */
  static of(root: unknown, source: string): PayloadReader {
    if (!isObject(root))
      throw new InputError(WEBHOOK_PAYLOAD_INVALID, `${source} payload is not a JSON object`, {
        details: { source },
      });
    return new PayloadReader(root, source, '');
  }

  has(path: string): boolean {
    const value = this.#lookup(path);
    return value !== undefined && value !== null;
  }

  string(path: string): string {
    return this.#required(path, 'a string', (v) => (typeof v === 'string' ? v : undefined));
  }

  optionalString(path: string): string | undefined {
    return this.#optional(path, 'a string', (v) => (typeof v === 'string' ? v : undefined));
  }

  /** Ids and numbers arrive as JSON numbers or, from some hosts, strings. */
  id(path: string): string {
    return this.#required(path, 'a number or string', asId);
  }

  optionalBoolean(path: string): boolean | undefined {
    return this.#optional(path, 'a boolean', (v) => (typeof v === 'boolean' ? v : undefined));
  }

  /** A reader for each element of an optional array (absent or null reads as empty). */
  optionalList(path: string): PayloadReader[] {
    const list = this.#optional(path, 'an array', (v) => (Array.isArray(v) ? v : undefined));
    return (list ?? []).map((item: unknown, index) => {
      const where = `${this.#full(path)}[${index}]`;
      if (!isObject(item)) throw this.#invalid(where, 'an object', item);
      return new PayloadReader(item, this.#source, where);
    });
  }

  /** A reader rooted at an optional nested object, or undefined when absent or null. */
  optionalObject(path: string): PayloadReader | undefined {
    const value = this.#optional(path, 'an object', (v) => (isObject(v) ? v : undefined));
    return value === undefined
      ? undefined
      : new PayloadReader(value, this.#source, this.#full(path));
  }

  #lookup(path: string): unknown {
    let current: unknown = this.#root;
    for (const key of path.split('.')) {
      if (!isObject(current)) return undefined;
      current = current[key];
    }
    return current;
  }

  #required<T>(path: string, expected: Expected, cast: (v: unknown) => T | undefined): T {
    const value = this.#lookup(path);
    const cast_ = cast(value);
    if (cast_ === undefined) throw this.#invalid(this.#full(path), expected, value);
    return cast_;
  }

  #optional<T>(
    path: string,
    expected: Expected,
    cast: (v: unknown) => T | undefined,
  ): T | undefined {
    const value = this.#lookup(path);
    if (value === undefined || value === null) return undefined;
    return this.#required(path, expected, cast);
  }

  #full(path: string): string {
    return this.#prefix === '' ? path : `${this.#prefix}.${path}`;
  }

  #invalid(path: string, expected: Expected, value: unknown): InputError {
    const found = value === undefined ? 'missing' : `${describeType(value)}, expected ${expected}`;
    const message =
      value === undefined
        ? `${this.#source} payload is missing ${path} (expected ${expected})`
        : `${this.#source} payload has ${path} of type ${found}`;
    return new InputError(WEBHOOK_PAYLOAD_INVALID, message, {
      details: { source: this.#source, path, expected },
    });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asId(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
