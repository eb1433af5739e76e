import { parseArgs } from 'node:util';
import type pg from 'pg';
import { DomainError } from '../errors.ts';
import { reconciliationCsv } from '../projections/gateway-reconciliation-csv.ts';
import { gatewayReconciliation, reconciliationPeriod } from '../projections/gateway-reconciliation.ts';

/**
 * `reconcile --from YYYY-MM-DD --to YYYY-MM-DD [--csv]`: the gateway's reconciliation report (JSON, or the CSV of
 * the admin route); exit code 1 when a check failed, 2 for a bad period.
 */
export async function reconcile(pool: pg.Pool, args: string[], print: (text: string) => void = console.log, complain: (text: string) => void = console.error): Promise<number> {
  const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' }, csv: { type: 'boolean' } } });
  if (!values.from || !values.to) {
    complain('reconcile needs --from and --to, dates written YYYY-MM-DD (WIB days, both included)');
    return 2;
  }
  let period;
  try {
    period = reconciliationPeriod(values.from, values.to);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    complain(`reconcile: ${err.message}`);
    return 2;
  }
  const report = await gatewayReconciliation(pool, period);
  print(values.csv ? reconciliationCsv(report).trimEnd() : JSON.stringify(report, null, 2));
  if (!report.balanced) complain('reconcile: NOT balanced');
  return report.balanced ? 0 : 1;
}
