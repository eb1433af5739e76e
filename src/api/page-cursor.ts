import { z } from 'zod';

/**
 * Cursor pagination of the key surface's newest-first lists (payments, withdrawals): a page answers the cursor of its
 * last row, and the next page starts strictly after that row in the order (time desc, id desc). Rows created meanwhile
 * are newer than the first page and never shift a later one, as an offset would; ties in time are broken by the id.
 */

/** Where a page ended: the time and id of its last row. */
export type ListPosition = { at: Date; id: string };

/** The largest page of a cursor list (the interface's page size for lists). */
export const maxCursorLimit = 100;

const positionShape = z.object({ at: z.iso.datetime(), id: z.uuid() });
const cursorMessage = 'must be a nextCursor a page of this list answered';

/** The opaque cursor of a position: base64url of its time and id, read back only by `pageCursor`. */
export const cursorOf = (p: ListPosition): string =>
  Buffer.from(JSON.stringify({ at: p.at.toISOString(), id: p.id }), 'utf8').toString('base64url');

function positionOf(cursor: string): ListPosition | null {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const parsed = positionShape.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return parsed.success ? { at: new Date(parsed.data.at), id: parsed.data.id } : null;
  } catch {
    return null; // not JSON: not a cursor of ours
  }
}

/** The `cursor` query parameter: a page's nextCursor, parsed to the position the next page starts after. */
export const pageCursor = z
  .string()
  .max(200)
  .transform((value, ctx) => {
    const position = positionOf(value);
    if (position) return position;
    ctx.issues.push({ code: 'custom', message: cursorMessage, input: value });
    return z.NEVER;
  })
  .meta({ description: "The previous page's pagination.nextCursor; absent: the first page (the newest)" });

/** The `limit` query parameter of a cursor list: 1 to `maxCursorLimit`, 10 when absent. */
export const cursorLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(maxCursorLimit)
  .default(10)
  .meta({ description: `Rows a page, 1 to ${maxCursorLimit} (default 10)` });

/**
 * A page from the rows a list read for it (up to `limit` + 1: the one past the page says that more follow), with its
 * cursor pagination.
 */
export function cursorPage<R>(rows: readonly R[], limit: number, position: (row: R) => ListPosition) {
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit && page.length > 0;
  return {
    rows: page,
    pagination: { limit, hasMore, nextCursor: hasMore ? cursorOf(position(page[page.length - 1]!)) : null },
  };
}
