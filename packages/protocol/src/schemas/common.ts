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
  cursor: z.string().optional().describe("From the previous page's nextCursor"),
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
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
