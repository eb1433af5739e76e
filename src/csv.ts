/**
 * CSV as finance's spreadsheets read it: a UTF-8 byte order mark first (Excel on Windows reads a file without one in
 * the system's code page, and mangles names written in other scripts or with accents), RFC 4180 lines (CRLF), no cell
 * a spreadsheet would run as a formula, and every time as WIB with its offset.
 */

export type CsvCell = string | number | boolean | null;

/** The byte order mark every CSV file starts with. */
export const csvBom = '\uFEFF';

/** One cell: quoted when it holds a separator, and text a spreadsheet would run as a formula kept as text. */
export function csvCell(value: CsvCell): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Lines of cells as one CSV file: the byte order mark, then each line ended by CRLF. */
export const csvText = (lines: CsvCell[][]): string =>
  csvBom + lines.map(line => `${line.map(csvCell).join(',')}\r\n`).join('');

/**
 * An instant as WIB wall time with its offset (`2026-12-17T09:30:00+07:00`; UTC+7 all year): the files' days are WIB
 * days, and so are their times, which a spreadsheet shows as they are written.
 */
export const csvTime = (at: Date): string =>
  `${new Date(at.getTime() + 7 * 3_600_000).toISOString().slice(0, 19)}+07:00`;
