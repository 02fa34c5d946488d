/**
 * What a failed Kubernetes request means, decided in one place: `done` (the object already
 * exists on create, is already gone on delete), `fail` (retrying cannot help: the request or the
 * credentials are wrong) or `retry` (the cluster or the network may recover). The rules are the
 * reference agent's (codefresh-runner.md §1.4) plus `Invalid` (HTTP 422, a manifest the API
 * server refuses), which retrying cannot fix either. `kubeError` turns a failure into a Sluice
 * error whose message is the same readable sentence: status, Kubernetes reason and message, and
 * the object; never request headers, so never a token.
 * @module
 */
import {
  AuthenticationError,
  ConflictError,
  InputError,
  isSluiceError,
  NotAllowedError,
  NotFoundError,
  UnavailableError,
} from '@sluice/errors';
import type { SluiceError } from '@sluice/errors';

export type KubeOperation = 'create' | 'delete' | 'list' | 'read' | 'apply' | 'patch';
export type KubeOutcome = 'done' | 'retry' | 'fail';

export interface KubeClassification {
  outcome: KubeOutcome;
  /** A sentence for people: what was asked, of which object, and what the API server said. */
  reason: string;
}

/** The object (or, without a name, the collection) a request was about. */
export interface KubeTarget {
  kind: string;
  namespace?: string;
  name?: string;
}

export const KUBE_ERROR_CODES = {
  unauthorized: 'SLUICE_KUBE_UNAUTHORIZED',
  forbidden: 'SLUICE_KUBE_FORBIDDEN',
  notFound: 'SLUICE_KUBE_NOT_FOUND',
  conflict: 'SLUICE_KUBE_CONFLICT',
  rejected: 'SLUICE_KUBE_REJECTED',
  unavailable: 'SLUICE_KUBE_UNAVAILABLE',
} as const;

/** Kubernetes `Status.reason` by HTTP status, for answers without a Status body (401). */
const REASON_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const FINAL_REASONS = new Set([
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'MethodNotAllowed',
  'NotAcceptable',
  'RequestEntityTooLarge',
  'UnsupportedMediaType',
  'Invalid',
]);
const GONE_REASONS = new Set(['NotFound', 'Gone', 'Expired']);

const HINTS: Readonly<Record<string, string>> = {
  Unauthorized: "check the runtime's credentials (service-account token or kubeconfig user)",
  Forbidden: "grant the agent's service account this verb on this resource in the namespace",
  Invalid: 'the manifest is not valid for this cluster; fix the runtime spec it was rendered from',
  BadRequest:
    'the manifest is not valid for this cluster; fix the runtime spec it was rendered from',
};

interface ApiFailure {
  status: number;
  /** `Status.reason`, else the usual one of the HTTP status, else undefined. */
  reason: string | undefined;
  message: string | undefined;
}

/**
 * An answer of the API server: our `KubeHttpError`, an `ApiException` of
 * @kubernetes/client-node, or anything shaped like them (a numeric HTTP status in `code`; an
 * aborted wait's DOMException has a numeric `code` too, below 100, and is no answer).
 */
function apiFailure(err: unknown): ApiFailure | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const { code, body } = err as { code?: unknown; body?: unknown };
  if (typeof code !== 'number' || code < 100) return undefined;
  const status = parseStatus(body);
  return {
    status: code,
    reason: status.reason ?? REASON_BY_STATUS[code],
    message: status.message,
  };
}

/** The `reason` and `message` of a Kubernetes `Status` body (JSON text or parsed). */
function parseStatus(body: unknown): { reason?: string; message?: string } {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      const text = body.trim().slice(0, 500);
      return text === '' ? {} : { message: text };
    }
  }
  if (typeof value !== 'object' || value === null) return {};
  const { reason, message } = value as Record<string, unknown>;
  return {
    ...(typeof reason === 'string' && reason !== '' ? { reason } : {}),
    ...(typeof message === 'string' && message !== '' ? { message } : {}),
  };
}

/** `Pod builds/engine-1`, `Secret objects in namespace builds`, or the kind alone. */
export function describeTarget(target: KubeTarget): string {
  const { kind, namespace, name } = target;
  if (name !== undefined) return `${kind} ${namespace === undefined ? '' : `${namespace}/`}${name}`;
  return namespace === undefined ? kind : `${kind} objects in namespace ${namespace}`;
}

function outcomeOf(operation: KubeOperation, failure: ApiFailure): KubeOutcome {
  if (operation === 'create' && failure.reason === 'AlreadyExists') return 'done';
  const reason = failure.reason ?? '';
  if (operation === 'delete' && GONE_REASONS.has(reason)) return 'done';
  return FINAL_REASONS.has(reason) ? 'fail' : 'retry';
}

function classifyApiFailure(
  failure: ApiFailure,
  operation: KubeOperation,
  target: KubeTarget,
): KubeClassification {
  const what = describeTarget(target);
  const status = `HTTP ${failure.status}${failure.reason === undefined ? '' : ` ${failure.reason}`}`;
  const answer = `${status}${failure.message === undefined ? '' : `: ${failure.message}`}`;
  const outcome = outcomeOf(operation, failure);
  if (outcome === 'done') {
    const state = operation === 'create' ? 'already exists' : 'is already gone';
    return { outcome, reason: `${what} ${state} (${answer})` };
  }
  const hint = outcome === 'fail' ? HINTS[failure.reason ?? ''] : undefined;
  const reason = `Could not ${operation} ${what}: the API server answered ${answer}${hint === undefined ? '' : `; ${hint}`}`;
  return { outcome, reason };
}

/** Errors that are not answers: refused or reset connections, timeouts, DNS, cancellation. */
function classifyOtherFailure(
  err: unknown,
  operation: KubeOperation,
  target: KubeTarget,
): KubeClassification {
  const { code, name, message } = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
  };
  const label = typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error';
  const text = typeof message === 'string' ? message : String(err);
  return {
    outcome: 'retry',
    reason: `Could not ${operation} ${describeTarget(target)}: no answer from the Kubernetes API server (${label}: ${text})`,
  };
}

/**
 * Classifies any error a Kubernetes request can end with: an ApiException, a network error, or
 * an error of ours (one that `kubeError` made keeps its outcome; an `InputError` is final).
 */
export function classifyKubeError(
  err: unknown,
  operation: KubeOperation,
  target: KubeTarget = { kind: 'object' },
): KubeClassification {
  if (isSluiceError(err)) {
    const outcome = err.details?.['outcome'];
    if (outcome === 'done' || outcome === 'retry' || outcome === 'fail') {
      return { outcome, reason: err.message };
    }
    const final = ['input', 'authentication', 'not-allowed'].includes(err.category);
    return { outcome: final ? 'fail' : 'retry', reason: err.message };
  }
  const failure = apiFailure(err);
  return failure === undefined
    ? classifyOtherFailure(err, operation, target)
    : classifyApiFailure(failure, operation, target);
}

/** The Sluice error for a failed request; its details carry the classification's outcome. */
export function kubeError(err: unknown, operation: KubeOperation, target: KubeTarget): SluiceError {
  if (isSluiceError(err)) return err;
  const { outcome, reason } = classifyKubeError(err, operation, target);
  const failure = apiFailure(err);
  const options = {
    cause: err,
    details: { operation, ...target, status: failure?.status, reason: failure?.reason, outcome },
  };
  switch (failure?.status ?? 0) {
    case 401:
      return new AuthenticationError(KUBE_ERROR_CODES.unauthorized, reason, options);
    case 403:
      return new NotAllowedError(KUBE_ERROR_CODES.forbidden, reason, options);
    case 404:
    case 410:
      return new NotFoundError(KUBE_ERROR_CODES.notFound, reason, options);
    case 409:
      return new ConflictError(KUBE_ERROR_CODES.conflict, reason, options);
    default:
      return outcome === 'fail'
        ? new InputError(KUBE_ERROR_CODES.rejected, reason, options)
        : new UnavailableError(KUBE_ERROR_CODES.unavailable, reason, options);
  }
}
