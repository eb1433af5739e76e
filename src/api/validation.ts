import type { z } from 'zod';
import { refuse, type ErrorCode } from '../errors.ts';
import { unstorableTextMessage } from '../text.ts';

/**
 * Parses a body that the route's schema could not pick in advance (one path, several shapes): the same 400 as a
 * route schema gives, with the path and message of every issue.
 */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  message = 'Invalid request',
  code: ErrorCode = 'VALIDATION_ERROR',
): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  throw refuse(code, {
    message,
    errors: parsed.error.issues.map(i => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message })),
  });
}

/** Fields of `required` that the body leaves out (absent, null or blank). */
export function missingFields(body: unknown, required: readonly string[]): string[] {
  const record = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  return required.filter(
    f => record[f] === undefined || record[f] === null || (typeof record[f] === 'string' && record[f].trim() === ''),
  );
}

/** The field (dotted path) of the first text a schema refused as unstorable: NUL or half a surrogate pair. */
export function unstorableField(error: z.ZodError): string | null {
  const issue = error.issues.find(i => i.message === unstorableTextMessage);
  return issue ? issue.path.map(String).join('.') : null;
}
