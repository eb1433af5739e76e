import { z } from 'zod';

// PostgreSQL stores neither NUL nor half of a surrogate pair, in text or in json ("Text fields").
const unstorable = /[\u0000\p{Cs}]/u;

export const isStorableText = (value: string): boolean => !unstorable.test(value);

export const unstorableTextMessage = 'must be well-formed Unicode text without NUL characters';

/** Every string that enters the service, and every string of an event: well-formed Unicode without NUL. */
export const text = z.string().refine(isStorableText, { message: unstorableTextMessage, abort: true });

/** Text a provider sends is cleaned, not refused: one odd character in a description must not stop a sync. */
export const cleanText = (value: string): string => value.replace(/\u0000/g, '').replace(/\p{Cs}/gu, '\uFFFD');
