import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { refuse } from '../../errors.ts';

/**
 * Form fields through a schema: typed, or a refusal (400) in the schema's first message, which the form's page shows
 * as it shows any refusal. A schema of a form gives each field its page's words.
 */
export function formThrough<S extends z.ZodType>(schema: S, fields: unknown): z.output<S> {
  const parsed = schema.safeParse(fields);
  if (parsed.success) return parsed.data;
  throw refuse('VALIDATION_ERROR', { words: parsed.error.issues[0]?.message ?? 'Isian tidak valid' });
}

/** The posted form of a request through its schema (a form without a body has no fields). */
export const postedForm = <S extends z.ZodType>(request: FastifyRequest, schema: S): z.output<S> =>
  formThrough(schema, request.body ?? {});
