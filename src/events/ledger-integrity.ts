import { z } from 'zod';
import { text } from '../text.ts';
import { event, isoDate, type EventOf } from './event.ts';

// stream ledger-integrity: the operator's answers to what the ledger's own checks found in its history

/**
 * The operator accepted what the ledger's start-up check found and the findings its leader held (`findings`, as they
 * are worded) and let it sign again, on from the checkpoint `continuesFrom` (seq and hash; null: the empty chain).
 * Being in the log, it is in the next checkpoint: whoever holds that one sees the reset, its reason and what it
 * accepted.
 */
export const LedgerIntegrityReset = event(
  'LedgerIntegrityReset',
  1,
  z.object({
    resetId: z.uuid(),
    reason: text,
    findings: z.array(text).min(1),
    continuesFrom: z.object({ seq: z.int().min(0), hash: z.string().regex(/^[0-9a-f]{64}$/) }).nullable(),
    resetBy: text,
    resetAt: isoDate,
  }),
);

export type LedgerIntegrityEvent = EventOf<typeof LedgerIntegrityReset>;
