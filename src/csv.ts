/** CSV as finance's spreadsheets read it: RFC 4180 lines (CRLF), and no cell a spreadsheet would run as a formula. */

export type CsvCell = string | number | boolean | null;

/** One cell: quoted when it holds a separator, and text a spreadsheet would run as a formula kept as text. */
export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Lines of cells as one CSV text, each line ended by CRLF. */
export const csvText = (lines: CsvCell[][]): string => lines.map(line => `${line.map(csvCell).join(',')}\r\n`).join('');
