import { describe, expect, it } from 'vitest';
import { refuse } from '../../src/errors.ts';
import { refusalWords } from '../../src/web/refusal-words.ts';

describe('a refusal as a page says it', () => {
  it("says the registry's words in Indonesian", () => {
    expect(refusalWords(refuse('OTP_VERIFICATION_FAILED'))).toBe('Kode OTP salah atau verifikasi gagal');
  });

  it('keeps what the throw site added after them', () => {
    expect(refusalWords(refuse('INSUFFICIENT_BALANCE', { message: 'The amount is more than the available balance (120000)' }))).toBe('Jumlah melebihi saldo tersedia (120000)');
    expect(refusalWords(refuse('WEBHOOK_URL_REFUSED', { message: 'Webhook URL refused: resolves to a private address' }))).toBe('URL webhook ditolak: resolves to a private address');
  });

  it("leaves a throw site's own message, and a code it has no words for, as they are", () => {
    expect(refusalWords(refuse('FORBIDDEN', { message: 'Halaman ini hanya untuk admin.' }))).toBe('Halaman ini hanya untuk admin.');
    expect(refusalWords(refuse('IDEMPOTENCY_KEY_REUSED'))).toBe('This Idempotency-Key was used with another request body');
  });
});
