import type { StatementDay } from '../../projections/gateway-statement.ts';
import { escapeHtml as e, formatRupiah } from '../html.ts';

const width = 600;
const height = 220;
const pad = { left: 8, right: 8, top: 24, bottom: 28 };

/** The scale's top: the largest value shown, never 0 (a flat chart still has a height to divide by). */
const topOf = (values: number[]) => Math.max(1, ...values.map(v => Math.abs(v)));

/**
 * The statement's chart as inline SVG (no script, no style attribute: the page's CSP stays as it is): bars for each
 * day's net volume, a line for the available balance at the day's end; the title says the same in words.
 */
export function statementChartHtml(days: StatementDay[]): string {
  if (days.length === 0) return '';
  const first = days[0]!;
  const last = days[days.length - 1]!;
  const volume = days.reduce((sum, d) => sum + d.net, 0);
  const title = `Saldo tersedia dan volume bersih harian, ${first.day} sampai ${last.day} (WIB): volume bersih ${formatRupiah(volume)}, saldo tersedia di akhir ${formatRupiah(last.available)}, tertinggi ${formatRupiah(Math.max(...days.map(d => d.available)))}.`;
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const slot = plotW / days.length;
  const netTop = topOf(days.map(d => d.net));
  const balanceTop = topOf(days.map(d => d.available));
  const balanceLow = Math.min(0, ...days.map(d => d.available));
  const y = (value: number, top: number, low = 0) => pad.top + plotH - ((value - low) / (top - low || 1)) * plotH;
  const bars = days
    .filter(d => d.net > 0)
    .map(d => {
      const i = days.indexOf(d);
      const top = y(d.net, netTop);
      return `<rect x="${(pad.left + i * slot + slot * 0.15).toFixed(1)}" y="${top.toFixed(1)}" width="${Math.max(1, slot * 0.7).toFixed(1)}" height="${(pad.top + plotH - top).toFixed(1)}" fill="#9ecae1"><title>${e(`${d.day}: ${formatRupiah(d.net)}`)}</title></rect>`;
    })
    .join('');
  const points = days
    .map((d, i) => `${(pad.left + (i + 0.5) * slot).toFixed(1)},${y(d.available, balanceTop, balanceLow).toFixed(1)}`)
    .join(' ');
  return `<div class="chart"><svg id="statement-chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="statement-chart-title" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
<title id="statement-chart-title">${e(title)}</title>
<line x1="${pad.left}" y1="${pad.top + plotH}" x2="${width - pad.right}" y2="${pad.top + plotH}" stroke="#9aa5b1" stroke-width="1"/>
${bars}<polyline points="${points}" fill="none" stroke="#1f6feb" stroke-width="2.5"/>
<text x="${pad.left}" y="16" font-size="13" fill="#1f6feb">Saldo tersedia (maks. ${e(formatRupiah(balanceTop))})</text>
<text x="${width - pad.right}" y="16" font-size="13" fill="#31708f" text-anchor="end">Volume bersih harian</text>
<text x="${pad.left}" y="${height - 8}" font-size="13" fill="#52606d">${e(first.day)}</text>
<text x="${width - pad.right}" y="${height - 8}" font-size="13" fill="#52606d" text-anchor="end">${e(last.day)}</text>
</svg><p class="muted">Garis: saldo tersedia di akhir hari. Batang: pembayaran bersih per hari (WIB).</p></div>`;
}
