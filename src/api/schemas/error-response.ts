import { z } from 'zod';
import { errorCodes, type ErrorCode } from '../../errors.ts';

const keySurfaceCodes = (Object.keys(errorCodes) as ErrorCode[]).filter(code => !('surface' in errorCodes[code]));

/** The refusal of every route outside /api/auth (src/api/errors.ts): a code of the catalogue in src/errors.ts. */
export const errorResponse = z
  .object({
    status: z.literal('error'),
    code: z.enum(keySurfaceCodes as [ErrorCode, ...ErrorCode[]]).describe('The error code (docs/reference/errors.md)'),
    message: z.string(),
    errors: z
      .array(z.object({ path: z.string().describe('The field at fault, e.g. body.amount'), message: z.string() }))
      .describe('The fields at fault, for a request its schema refuses; empty otherwise'),
  })
  .meta({ id: 'ErrorResponse', description: 'The error envelope' });

/** The refusal of the session surface (/api/auth), in the interface's Indonesian texts. */
export const sessionErrorResponse = z
  .object({
    ok: z.literal(false),
    message: z.string(),
  })
  .meta({ id: 'SessionErrorResponse', description: 'The error body of the session surface (/api/auth)' });
