/**
 * A time limit for a read that may hang while the database is unreachable (a pool waits up to
 * its connection timeout, 30 s): the caller gets an answer in time, the read goes on and its
 * result is dropped.
 * @module
 */
import { UnavailableError } from '@sluice/errors';

export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new UnavailableError('SLUICE_DB_UNAVAILABLE', `No answer within ${ms} ms ${what}`)),
      ms,
    );
  });
  // A late failure of the abandoned read must not surface as an unhandled rejection.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
