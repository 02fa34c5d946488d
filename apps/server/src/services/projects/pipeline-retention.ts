/**
 * A pipeline's stored `retention` as the API shows it; the retention pass deletes by it.
 * @module
 */
import type { JsonObject } from '@sluice/db';
import type { Retention } from '@sluice/protocol';

/** A stored `retention` (jsonb) as the API shows it: only the limits it has. */
export function retentionOf(stored: JsonObject): Retention {
  const limit = (key: string) => {
    const value = stored[key];
    return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const days = limit('days');
  const builds = limit('builds');
  return { ...(days === undefined ? {} : { days }), ...(builds === undefined ? {} : { builds }) };
}
