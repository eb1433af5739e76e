import { z } from 'zod';
import { text } from '../../text.ts';
import type { AccountForm } from '../../web/pages/accounts.ts';

/** A text field as a form sends it: trimmed, blank or not text at all is absent (the schema after says if it must be). */
const field = z.preprocess(
  value => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined),
  z.string().optional(),
);
/** A password, PIN or code is taken as typed, spaces included; empty is absent. */
const secret = z.preprocess(
  value => (typeof value === 'string' && value !== '' ? value : undefined),
  z.string().optional(),
);
/** A number field as the API's schemas take it: a whole number typed is a number, anything else left for them to refuse. */
const count = z.preprocess(
  value =>
    typeof value === 'string' && /^\d{1,9}$/.test(value.trim())
      ? Number(value)
      : typeof value === 'string' && value.trim() !== ''
        ? value.trim()
        : undefined,
  z.union([z.number(), z.string()]).optional(),
);

/** Every field the account forms post, typed; what each must be is the command's schema's to say. */
export const accountFormBody = z.object({
  flow: field,
  providerCode: field,
  accountName: field,
  accountNumber: field,
  username: field,
  password: secret,
  phoneNumber: field,
  intervalMinutes: count,
  accountId: field,
  pin: field,
  verificationMethod: field,
  action: field,
  sessionId: field,
  otp: field,
});
export type AccountFormBody = z.output<typeof accountFormBody>;

const accountName = text.trim().min(1, 'Nama wajib diisi').max(100, 'Nama maksimal 100 karakter').prefault('');

/** A new account's name and sync interval. */
export const linkSettings = z.object({
  accountName,
  intervalMinutes: z.int('Interval harus angka bulat').min(5).max(1440),
});

/** An account's settings as its page changes them; a new login only where one is typed. */
export const accountSettings = z.object({
  accountName,
  intervalMinutes: z
    .int('Interval harus angka bulat')
    .min(5, 'Interval minimal 5 menit')
    .max(1440, 'Interval maksimal 1440 menit'),
  username: text.min(1).max(100).optional(),
  password: text.min(1).max(200).optional(),
});

/** The form as it comes back after a refusal: what was typed, without passwords, PINs or codes. */
export const formOf = (body: unknown): AccountForm => {
  const posted = (body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    ['providerCode', 'accountName', 'accountNumber', 'username', 'phoneNumber', 'intervalMinutes'].flatMap(k =>
      typeof posted[k] === 'string' ? [[k, posted[k]]] : [],
    ),
  );
};
