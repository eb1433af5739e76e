import { z } from 'zod';
import { event, isoDate, type EventOf } from './event.ts';
import { paymentType } from './payments.ts';
import { text } from '../text.ts';

// stream gateway-holding-accounts: the platform's accounts that receive gateway payments

/** An admin made one of their linked accounts a holding account, serving the gateway methods its provider takes. */
export const HoldingAccountMarked = event(
  'HoldingAccountMarked',
  1,
  z.object({
    accountId: z.uuid(),
    providerCode: text,
    methods: z.array(paymentType).min(1),
    markedBy: z.uuid(),
    markedAt: isoDate,
  }),
);

/** No new gateway payment goes to the account; payments billed to it already stay payable there. */
export const HoldingAccountUnmarked = event(
  'HoldingAccountUnmarked',
  1,
  z.object({
    accountId: z.uuid(),
    unmarkedBy: z.uuid(),
    unmarkedAt: isoDate,
  }),
);

export type HoldingAccountEvent = EventOf<typeof HoldingAccountMarked> | EventOf<typeof HoldingAccountUnmarked>;
