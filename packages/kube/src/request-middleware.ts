/**
 * What runs around each request of a `KubeClient`: the token bucket (every request waits for a
 * token before it is sent) and, per call, the caller's abort signal, attached ahead of the
 * bucket so that a cancelled call stops waiting too.
 * @module
 */
import { Observable } from '@kubernetes/client-node';
import type {
  ConfigurationOptions,
  Middleware,
  ObservableMiddleware,
} from '@kubernetes/client-node';
import type { TokenBucket } from './token-bucket.js';

export function rateLimited(bucket: TokenBucket): Middleware {
  return {
    pre: async (context) => {
      await bucket.take(context.getSignal());
      return context;
    },
    post: (response) => Promise.resolve(response),
  };
}

/** Per-call options that attach `signal` to the request, ahead of the rate limiter. */
export function withSignal(signal: AbortSignal | undefined): ConfigurationOptions | undefined {
  if (signal === undefined) return undefined;
  const middleware: ObservableMiddleware = {
    pre: (context) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (response) => new Observable(Promise.resolve(response)),
  };
  return { middleware: [middleware], middlewareMergeStrategy: 'prepend' };
}
