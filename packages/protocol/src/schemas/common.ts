/**
 * Shapes shared by every API: ids, names, timestamps, pagination and the error body.
 * @module
 */
import { z } from 'zod';

export const Name = z
  .string()
  .min(1)
  .max(63)
  .regex(
    /^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/,
    'Use lowercase letters, digits, ".", "_" and "-", starting and ending with a letter or digit',
  )
  .describe('A name unique in its scope');

export const Id = z.string().min(1).max(64).describe('An opaque id');
export const Timestamp = z.string().describe('RFC 3339 time');
/**
 * A time a client reports (engine events): RFC 3339 with a zone, between years 1 and 9999, so
 * it is refused here rather than by the database.
 */
export const ReportedTime = z.iso
  .datetime({ offset: true })
  .refine((text) => {
    const time = new Date(text);
    // Not a date at all is reported once, by the format check above.
    return Number.isNaN(time.getTime()) || time.getUTCFullYear() >= 1;
  }, 'Year must be 1 or later')
  .describe('RFC 3339 time with a zone, e.g. 2024-05-01T12:00:00.000Z');
export const Empty = z.object({});
export const NoContent = z.null();

export const VariableName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    'A variable name is letters, digits and "_", not starting with a digit',
  );
export const Variables = z.record(VariableName, z.string()).describe('Variables by name');

export const Page = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).describe('Page size'),
  cursor: z
    .string()
    .regex(/^[a-z]{3}_[0-9a-z]{20}$/, "Not a cursor: pass the previous page's nextCursor unchanged")
    .optional()
    .describe("From the previous page's nextCursor"),
});

export function paged<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

export const ErrorBody = z.object({
  error: z.object({
    code: z.string().describe('Stable code, see docs/errors.md'),
    message: z.string(),
    details: z.unknown().optional(),
    hint: z.string().optional(),
    requestId: z
      .string()
      .optional()
      .describe("The request's id, also in the x-request-id header and the server's log"),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const RuntimeName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][\w./:@-]*$/, 'A runtime name is letters, digits and . _ - / : @')
  .describe('Runtime environment name, e.g. "my-cluster/ci"');
