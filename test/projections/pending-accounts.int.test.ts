import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { accountsWithPendingPayments, paymentsProjection } from '../../src/projections/payments.ts';
import { freshPool } from '../support/database.ts';

const now = new Date(Date.UTC(2026, 10, 2, 12, 0));
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const accounts = [
  '00000000-0000-4000-8000-000000000001',
  '00000000-0000-4000-8000-000000000002',
  '00000000-0000-4000-8000-000000000003',
];

/** A payments row as far as the question goes: whose, in which state, billed or not, when made and until when. */
const row = fc.record({
  account: fc.constantFrom(...accounts),
  status: fc.constantFrom('PENDING', 'PENDING', 'COMPLETED', 'EXPIRED'),
  billed: fc.boolean(),
  createdMinutes: fc.integer({ min: -120, max: 0 }),
  lifeMinutes: fc.integer({ min: 5, max: 180 }),
});

/** The question as it was asked before (every pending payment grouped), the oracle. */
const grouped = `select receiving_account_id as id, max(created_at) as newest from payments
  where status = 'PENDING' and expires_at > $1 and total_amount is not null group by receiving_account_id`;

const byId = (rows: { id: string; newest: Date }[]) =>
  [...rows].sort((a, b) => a.id.localeCompare(b.id)).map(r => [r.id, r.newest.toISOString()]);

describe('the accounts the payment checks look at', () => {
  it('are those with a billed payment pending and not expired, each with its newest such payment, as grouping all of them says', async () => {
    const pool = await freshPool();
    for (const step of paymentsProjection.schema) await pool.query(step);
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 40 }), async rows => {
        await pool.query('delete from payments');
        for (const [i, r] of rows.entries()) {
          const created = at(r.createdMinutes);
          await pool.query(
            `insert into payments (id, owner_id, order_id, receiving_account_id, provider_code, amount, unique_code, total_amount, redirect_url, status, expires_at, created_at)
             values (gen_random_uuid(), gen_random_uuid(), $1, $2, 'WALLET-D', 10000, $3, $4, 'https://shop.example', $5, $6, $7)`,
            [
              `order-${i}`,
              r.account,
              r.billed ? 7 : null,
              r.billed ? 10_007 : null,
              r.status,
              new Date(created.getTime() + r.lifeMinutes * 60_000),
              created,
            ],
          );
        }
        const expected = (await pool.query<{ id: string; newest: Date }>(grouped, [now])).rows;
        expect(byId(await accountsWithPendingPayments(pool, now))).toEqual(byId(expected));
      }),
      { numRuns: 60 },
    );
    await pool.end();
  }, 60_000);
});
