import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodes, errorCodesMarkdown, refuse, type ErrorCode } from '../src/errors.ts';

describe('the error-code registry', () => {
  it('is what docs/reference/errors.md says (npm run docs:errors writes it again)', () => {
    const written = readFileSync(path.resolve(import.meta.dirname, '../docs/reference/errors.md'), 'utf8');
    expect(written).toBe(errorCodesMarkdown());
  });

  it("gives every refusal its code's status and message, or the throw site's message", () => {
    for (const code of Object.keys(errorCodes) as ErrorCode[]) {
      const error = refuse(code);
      expect([error.status, error.message]).toEqual([errorCodes[code].status, errorCodes[code].message]);
    }
    expect(refuse('ORDER_PENDING', { message: 'Order INV-1 already has a pending payment' })).toMatchObject({
      status: 409,
      code: 'ORDER_PENDING',
      message: 'Order INV-1 already has a pending payment',
    });
  });

  it('is the only way the source refuses: no DomainError is built outside the registry module', () => {
    const root = path.resolve(import.meta.dirname, '../src');
    const offenders = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter(f => f.endsWith('.ts') && f !== 'errors.ts' && !f.startsWith('providers/sandbox'))
      .filter(f =>
        /new (DomainError|InvalidInput|NotFound|Conflict|Forbidden|Unauthorized)\(/.test(
          readFileSync(path.join(root, f), 'utf8'),
        ),
      );
    expect(offenders).toEqual([]);
  });
});
