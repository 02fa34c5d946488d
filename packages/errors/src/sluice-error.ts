/**
 * Error classes by category, each with a stable `code` (SLUICE_* style), an optional `cause`
 * and optional structured `details`. Boundaries (HTTP, CLI) translate categories once: see
 * `exitCodeFor` and, later, the server's error handler. Catalogue: docs/errors.md.
 * @module
 */

export type ErrorDetails = Record<string, unknown>;

export interface SluiceErrorOptions {
  cause?: unknown;
  details?: ErrorDetails;
  /** What the person should do next; printed after the message by the CLI. */
  hint?: string;
}

export type ErrorCategory =
  | 'input'
  | 'authentication'
  | 'not-allowed'
  | 'not-found'
  | 'conflict'
  | 'unavailable'
  | 'internal';

/** Base class; never thrown directly, use a category subclass. */
export abstract class SluiceError extends Error {
  abstract readonly category: ErrorCategory;
  readonly code: string;
  readonly details: ErrorDetails | undefined;
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: SluiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.hint = options.hint;
    this.name = new.target.name;
  }
}

/** The caller sent something wrong (HTTP 400, CLI exit 2). */
export class InputError extends SluiceError {
  readonly category = 'input';
}
export class AuthenticationError extends SluiceError {
  readonly category = 'authentication';
}
export class NotAllowedError extends SluiceError {
  readonly category = 'not-allowed';
}
export class NotFoundError extends SluiceError {
  readonly category = 'not-found';
}
export class ConflictError extends SluiceError {
  readonly category = 'conflict';
}
/** A dependency (Docker, PostgreSQL, Kubernetes) is unreachable; retrying may help. */
export class UnavailableError extends SluiceError {
  readonly category = 'unavailable';
}
/** Our own bug: never the user's fault, always reported with its stack. */
export class InternalError extends SluiceError {
  readonly category = 'internal';
}

export function isSluiceError(err: unknown): err is SluiceError {
  return err instanceof SluiceError;
}

/** CLI exit codes per category; 1 stays reserved for "the build failed". */
export function exitCodeFor(err: unknown): number {
  if (!isSluiceError(err)) return 70;
  switch (err.category) {
    case 'input':
      return 2;
    case 'authentication':
    case 'not-allowed':
      return 77;
    case 'not-found':
      return 66;
    case 'conflict':
      return 75;
    case 'unavailable':
      return 69;
    case 'internal':
      return 70;
  }
}

/** Message, then the cause chain when verbose: for people, not for logs. */
export function describeError(err: unknown, options: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  let current: unknown = err;
  let depth = 0;
  while (current !== undefined && depth < 8) {
    const message =
      current instanceof Error
        ? current.message
        : typeof current === 'string'
          ? current
          : JSON.stringify(current);
    lines.push(depth === 0 ? message : `  caused by: ${message}`);
    if (!options.verbose || !(current instanceof Error)) break;
    current = current.cause;
    depth += 1;
  }
  if (isSluiceError(err) && err.hint) lines.push(`hint: ${err.hint}`);
  return lines.join('\n');
}
