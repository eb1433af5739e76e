import type { AuditView } from '../../audit/event-view.ts';
import { escapeHtml as e } from '../html.ts';
import { timeHtml } from '../page.ts';

/** One event as an auditor reads it: its type, revision, when, who, and its payload (secrets already replaced). */
export function eventHtml(ev: AuditView): string {
  const when = typeof ev.metadata.occurredAt === 'string' ? timeHtml(ev.metadata.occurredAt) : '—';
  return `<li><strong>${e(ev.type)}</strong> <span class="muted">#${e(ev.revision)} · ${when} · ${e(ev.metadata.actor)}</span>
<pre class="muted">${e(JSON.stringify(ev.data, null, 2))}</pre></li>`;
}
