import type pg from 'pg';
import { z } from 'zod';
import { NoProof, proveEvent } from '../audit/prove-event.ts';
import type { EventStore } from '../store/event-store.ts';

type Out = { print: (text: string) => void; complain: (text: string) => void };
const console_: Out = { print: text => console.log(text), complain: text => console.error(text) };

/**
 * `prove-event <eventId>`: the event's Merkle audit path to the signed checkpoint whose range holds it, as JSON
 * (docs/verify-proof.mjs checks it); exit code 1 when there is none to give, 2 for bad usage.
 */
export async function proveEventCommand(
  deps: { store: EventStore; pool: pg.Pool },
  args: string[],
  out: Out = console_,
): Promise<number> {
  const [eventId, ...more] = args;
  if (!z.uuid().safeParse(eventId).success || more.length > 0) {
    out.complain("prove-event needs one event id (an event's metadata.eventId, a UUID)");
    return 2;
  }
  try {
    out.print(JSON.stringify(await proveEvent(deps, eventId!), null, 2));
    return 0;
  } catch (err) {
    if (!(err instanceof NoProof)) throw err;
    out.complain(`prove-event: ${err.message}`);
    return 1;
  }
}
