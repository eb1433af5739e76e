import { csvTime, type CsvCell } from '../csv.ts';
import type { AccountNames } from './report-names.ts';
import type { OpenSuspenseItem } from './suspense-ageing.ts';

/** A suspense credit as both suspense tables hold it: the report's items (a Date) and the open ones (an ISO string). */
type SuspenseCredit = Pick<OpenSuspenseItem, 'accountId' | 'amount' | 'senderName' | 'reference'> &
  Partial<AccountNames> & { receivedAt: Date | string };

/**
 * The columns that say which credit a row is, after its ids, in the suspense table (gateway-reconciliation-csv.ts) and
 * the open credits' table (carried-balances-csv.ts): one list, so a spreadsheet reads them the same in both.
 */
const creditColumns: [name: string, cell: (credit: SuspenseCredit) => CsvCell][] = [
  ['holdingAccountId', c => c.accountId],
  ['providerCode', c => c.providerCode ?? null],
  ['accountName', c => c.accountName ?? null],
  ['amount', c => c.amount],
  ['senderName', c => c.senderName],
  ['reference', c => c.reference],
  ['receivedAt', c => csvTime(new Date(c.receivedAt))],
];

export const suspenseCreditHeader = creditColumns.map(([name]) => name);

export const suspenseCreditCells = (credit: SuspenseCredit): CsvCell[] => creditColumns.map(([, cell]) => cell(credit));
