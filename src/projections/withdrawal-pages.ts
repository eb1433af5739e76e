import { preparedQuery, type Queryable } from '../db/pool.ts';
import type { GatewayWithdrawalRow } from './gateway-ledger.ts';

/**
 * A merchant's withdrawals newest first by (requested_at, id), from just after `after` (the key surface's cursor list).
 * The merchant's index (merchant_id, requested_at) bounds the walk; a merchant asks for a few withdrawals a week, so
 * the ties the id breaks are sorted in memory.
 */
export async function listWithdrawalsAfter(
  db: Queryable,
  f: {
    merchantId: string;
    status?: GatewayWithdrawalRow['status'] | undefined;
    after?: { at: Date; id: string } | undefined;
    limit: number;
  },
): Promise<GatewayWithdrawalRow[]> {
  const r = await preparedQuery<GatewayWithdrawalRow>(
    db,
    'ListWithdrawalsAfter',
    `select * from gateway_withdrawals
      where merchant_id = $1 and ($2::text is null or status = $2)
        and ($3::timestamptz is null or (requested_at, id) < ($3, $4::uuid))
      order by requested_at desc, id desc limit $5`,
    [f.merchantId, f.status ?? null, f.after?.at ?? null, f.after?.id ?? null, f.limit],
  );
  return r.rows;
}
