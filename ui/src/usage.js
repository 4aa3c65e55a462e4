// Usage for invoices between two days: a tenant's (an operator's tenant page), or the
// signed-in tenant's own (its overview), as a table of its machines' lines and totals.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from './api.js';
import { Field, ProblemView, Section, bytes, when } from './format.js';

// day is a date input's value (YYYY-MM-DD) as the UTC midnight the API wants.
const day = (d) => `${d}T00:00:00Z`;
const isoDay = (t) => t.toISOString().slice(0, 10);

// Usage reads the tenant's usage for invoices between two days (the second included)
// as a table of its lines and their totals.
export function Usage({ path }) {
  const now = new Date();
  const [range, setRange] = useState({ from: isoDay(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))), to: isoDay(now) });
  const [report, setReport] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const end = new Date(day(range.to));
    end.setUTCDate(end.getUTCDate() + 1);
    const q = new URLSearchParams({ from: day(range.from), to: end.toISOString().replace('.000', '') });
    setError(null);
    call('GET', `${path}${path.includes('?') ? '&' : '?'}${q}`).then(setReport, setError);
  }, [path, range]);
  const submit = (e) => { e.preventDefault(); const f = new FormData(e.target); setRange({ from: f.get('from'), to: f.get('to') }); };
  const line = (l, total) => html`<tr key=${l.machine_id || 'total'}>${total ? html`<th scope="row">Total</th>` : html`<td>${l.name}</td>`}
    <td>${l.hours}</td><td>${l.core_hours}</td><td>${l.memory_mb_hours}</td><td>${l.disk_gb_hours}</td>
    <td>${l.backup_hours}</td><td>${l.snapshot_hours}</td><td>${bytes(l.traffic_in_bytes)}</td><td>${bytes(l.traffic_out_bytes)}</td></tr>`;
  return html`<${Section} id="usage-part" title="Usage for invoices">
    <form onSubmit=${submit} aria-label="Usage period" class="inline-form">
      <${Field} name="from" label="From (UTC)" error=${error} type="date" defaultValue=${range.from} required />
      <${Field} name="to" label="To, included" error=${error} type="date" defaultValue=${range.to} required />
      <button type="submit">Show</button>
    </form>
    <${ProblemView} error=${error} />
    ${report && html`<p id="usage-period">From ${when(report.from)} to ${when(report.to)}${report.gaps ? `, ${report.gaps} hours not counted (no run closed them)` : ''}.</p>
    <div class="table-wrap" tabindex="0"><table data-usage aria-describedby="usage-period">
      <thead><tr><th scope="col">Machine</th><th scope="col">Hours</th><th scope="col">Core hours</th><th scope="col">Memory MB hours</th><th scope="col">Disk GB hours</th>
        <th scope="col">Backup hours</th><th scope="col">Snapshot hours</th><th scope="col">Traffic in</th><th scope="col">Traffic out</th></tr></thead>
      <tbody>${report.lines.map((l) => line(l))}</tbody>
      <tfoot>${line(report.totals, true)}</tfoot>
    </table></div>`}
  <//>`;
}
