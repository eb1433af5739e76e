import { parseArgs } from 'node:util';
import { DomainError } from '../errors.ts';
import { reconciliationCsv, reconciliationTable, reconciliationTables } from '../audit/gateway-reconciliation-csv.ts';
import {
  gatewayReconciliation,
  reconciliationPeriod,
  type ReconciliationSources,
} from '../audit/gateway-reconciliation.ts';

/**
 * `reconcile --from YYYY-MM-DD --to YYYY-MM-DD [--csv --table <name>]`: the gateway's reconciliation report (JSON, or
 * one table of it as the admin route's CSV); exit code 1 when a check failed, 2 for a bad period or table.
 */
export async function reconcile(
  sources: ReconciliationSources,
  args: string[],
  print: (text: string) => void = console.log,
  complain: (text: string) => void = console.error,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { from: { type: 'string' }, to: { type: 'string' }, csv: { type: 'boolean' }, table: { type: 'string' } },
  });
  if (!values.from || !values.to) {
    complain('reconcile needs --from and --to, dates written YYYY-MM-DD (WIB days, both included)');
    return 2;
  }
  let period;
  let table;
  try {
    period = reconciliationPeriod(values.from, values.to);
    if (values.csv) table = reconciliationTable(values.table);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    complain(
      `reconcile: ${err.message}${values.csv && !values.table ? ` (--table ${reconciliationTables.join('|')})` : ''}`,
    );
    return 2;
  }
  const report = await gatewayReconciliation(sources, period);
  print(table ? reconciliationCsv(report, table).trimEnd() : JSON.stringify(report, null, 2));
  if (!report.balanced) complain('reconcile: NOT balanced');
  return report.balanced ? 0 : 1;
}
