import type { StatementDay } from '../../projections/gateway-statement.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';
import { tableHtml } from '../page.ts';

/**
 * The statement's chart, drawn without a viewBox: one SVG unit is one CSS pixel, so its text is `fontPx` on a phone as
 * on a desktop (a scaled drawing shrank it to 6-7 px at 375 px wide). The plot's x positions are percentages of its
 * width, which is at least `dayPx` a day and at least its box (the stylesheet's `min-width: 100%`): a long period
 * scrolls sideways in its box, a short one fills it; the balance axis stays beside it.
 */
const fontPx = 12;
const dayPx = 10;
/** every 7th day from the first has a date: a label a week, 70 px apart at the least (a label is under 45 px wide) */
const labelEvery = 7;
const height = 200;
const plotTop = 12;
const plotBottom = 164;
const dateY = 184;
/** a generous width of one character of the axis's labels at `fontPx` */
const charPx = 7.5;
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'Mei', 'Jun', 'Jul', 'Agu', 'Sep', 'Okt', 'Nov', 'Des'];

export type BalanceAxis = { low: number; high: number; ticks: number[] };

/**
 * One rupiah axis for the balance and the volume: from a round value at or below the least (0 at most) to one at or
 * above the greatest, in a few steps of 1, 2 or 5 times a power of ten (1 rupiah at the least). Nothing to show (every
 * value 0) has no axis.
 */
export function balanceAxis(values: readonly number[]): BalanceAxis | null {
  const least = Math.min(0, ...values);
  const greatest = Math.max(0, ...values);
  if (least === greatest) return null;
  const rough = (greatest - least) / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, ([1, 2, 5, 10].find(m => m * power >= rough) ?? 10) * power);
  const low = Math.floor(least / step) * step;
  const high = Math.ceil(greatest / step) * step;
  const ticks = Array.from({ length: Math.round((high - low) / step) + 1 }, (_, i) => low + i * step);
  return { low, high, ticks };
}

/** A day as its axis label, `7 Jan`: the year is in the caption and the table. */
const shortDate = (day: string) => `${Number(day.slice(8, 10))} ${months[Number(day.slice(5, 7)) - 1]}`;
const pct = (fraction: number) => `${(fraction * 100).toFixed(3)}%`;

/** Where a value lies on the axis, in px from the top. */
const yOf = (axis: BalanceAxis) => (value: number) =>
  plotBottom - ((value - axis.low) / (axis.high - axis.low)) * (plotBottom - plotTop);

function plotSvg(days: StatementDay[], axis: BalanceAxis): string {
  const n = days.length;
  const y = yOf(axis);
  const zero = y(0);
  const grid = axis.ticks
    .map(t => `<line x1="0" x2="100%" y1="${y(t)}" y2="${y(t)}" stroke="${t === 0 ? '#9aa5b1' : '#e4e7eb'}"/>`)
    .join('');
  const bars = days
    .map((d, i) => {
      if (d.net === 0) return '';
      const [top, bottom] = d.net > 0 ? [y(d.net), zero] : [zero, y(d.net)];
      return `<rect x="${pct((i + 0.15) / n)}" y="${top.toFixed(1)}" width="${pct(0.7 / n)}" height="${Math.max(1, bottom - top).toFixed(1)}" fill="#9ecae1"/>`;
    })
    .join('');
  // the balance as segments from day to day (a polyline takes no percentages); a single day is a level stroke
  const points = days.map((d, i) => ({ x: (i + 0.5) / n, y: y(d.available).toFixed(1) }));
  const segments =
    n === 1
      ? [
          [
            { ...points[0]!, x: 0.1 },
            { ...points[0]!, x: 0.9 },
          ],
        ]
      : points.slice(1).map((p, i) => [points[i]!, p]);
  const line = segments
    .map(
      ([a, b]) =>
        `<line x1="${pct(a!.x)}" y1="${a!.y}" x2="${pct(b!.x)}" y2="${b!.y}" stroke="#1f6feb" stroke-width="2.5" stroke-linecap="round"/>`,
    )
    .join('');
  const dates = days
    .map((d, i) => {
      if (i % labelEvery !== 0) return '';
      // the first days' labels start at their day, the last days' end at theirs: none is cut at the plot's edges
      const anchor = i < 3 ? 'start' : i >= n - 3 ? 'end' : 'middle';
      const x = anchor === 'start' ? i / n : anchor === 'end' ? (i + 1) / n : (i + 0.5) / n;
      return `<line x1="${pct((i + 0.5) / n)}" x2="${pct((i + 0.5) / n)}" y1="${plotBottom}" y2="${plotBottom + 5}" stroke="#52606d"/><text x="${pct(x)}" y="${dateY}" font-size="${fontPx}" fill="#3e4c59" text-anchor="${anchor}">${e(shortDate(d.day))}</text>`;
    })
    .join('');
  return `<svg id="statement-chart" width="${n * dayPx}" height="${height}" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">${grid}${bars}${line}${dates}</svg>`;
}

function axisSvg(axis: BalanceAxis): string {
  const labels = axis.ticks.map(formatRupiah);
  const width = Math.ceil(Math.max(...labels.map(l => l.length)) * charPx) + 8;
  const y = yOf(axis);
  const text = axis.ticks
    .map(
      (t, i) =>
        `<text x="${width - 6}" y="${(y(t) + 4).toFixed(1)}" font-size="${fontPx}" fill="#3e4c59" text-anchor="end">${e(labels[i]!)}</text>`,
    )
    .join('');
  return `<svg id="statement-chart-axis" class="chart-axis" width="${width}" height="${height}" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">${text}</svg>`;
}

/** The chart's values as a table: what the drawing shows, for a screen reader and for exact figures. */
const valuesTable = (days: StatementDay[]) =>
  `<details><summary>Tabel data grafik (${e(days.length)} hari)</summary>${tableHtml(
    'statement-chart-data',
    'Saldo tersedia dan volume bersih per hari',
    [{ label: 'Tanggal (WIB)' }, { label: 'Saldo tersedia', num: true }, { label: 'Volume bersih', num: true }],
    days.map(d => ({ cells: [e(d.day), e(formatRupiah(d.available)), e(formatRupiah(d.net))] })),
  )}</details>`;

/**
 * The statement's chart as inline SVG (no script, no style attribute: the page's CSP stays as it is): bars for each
 * day's net volume and a line for the available balance at the day's end, on one rupiah axis; a caption says the same
 * in words, and a table gives every day's values. A period with nothing in it says so instead.
 */
export function statementChartHtml(days: StatementDay[]): string {
  const axis = balanceAxis(days.flatMap(d => [d.net, d.available]));
  const first = days[0];
  const last = days[days.length - 1];
  if (!axis || !first || !last)
    return `<p class="muted" id="statement-chart-empty">Belum ada pembayaran atau saldo${first && last ? ` dari ${e(first.day)} sampai ${e(last.day)} (WIB)` : ''}: grafiknya muncul setelah pembayaran pertama masuk.</p>`;
  const volume = days.reduce((sum, d) => sum + d.net, 0);
  const caption = `Saldo tersedia dan volume bersih harian, ${first.day} sampai ${last.day} (WIB): volume bersih ${formatRupiah(volume)}, saldo tersedia di akhir ${formatRupiah(last.available)}, tertinggi ${formatRupiah(Math.max(...days.map(d => d.available)))}.`;
  return `<figure class="chart" aria-labelledby="statement-chart-title"><figcaption id="statement-chart-title" class="muted">${e(caption)}</figcaption>
<div class="chart-body">${axisSvg(axis)}<div class="chart-scroll" role="region" aria-label="Grafik saldo dan volume per hari; geser ke samping untuk hari sebelumnya" tabindex="0">${plotSvg(days, axis)}</div></div>
<p class="muted">Garis: saldo tersedia di akhir hari. Batang: pembayaran bersih per hari (WIB). Satu sumbu rupiah untuk keduanya.</p>
${valuesTable(days)}</figure>`;
}
