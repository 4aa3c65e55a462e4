// The tenant's overview: the machines' states, the quota's use against its limits,
// the usage trends of the last days (GET /api/client/usage-trends) and each machine's
// traffic this month against its allowance. A chunk of its own. An operator sees a
// tenant's through tenant (the client area's ?tenant_id=).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { ProblemView, Section, bytes, gb, mb } from '../format.js';
import { Usage } from '../usage.js';

const quotaRows = [['machines', 'Machines', String], ['cpu_cores', 'CPU cores', String], ['memory_mb', 'Memory', mb], ['disk_gb', 'Disk', gb],
  ['backups', 'Backups', String], ['backup_gb', 'Backup space', gb], ['snapshots', 'Snapshots', String]];

// useGet reads one route, keeping its answer and its problem.
function useGet(path) {
  const [state, setState] = useState({});
  useEffect(() => {
    let live = true;
    call('GET', path).then((v) => live && setState({ v }), (e) => live && setState({ e }));
    return () => { live = false; };
  }, [path]);
  return state;
}

export function Overview({ tenant = '' }) {
  const q = tenant ? `tenant_id=${encodeURIComponent(tenant)}` : '';
  const { v: o, e } = useGet(`/api/client/overview${q ? `?${q}` : ''}`);
  return html`<main id="main">
    <h1>Overview${tenant ? html` <span class="muted">of tenant ${tenant}</span>` : ''}</h1>
    <${ProblemView} error=${e} />
    ${o && html`<ul class="stats" aria-label="Machines">
      <li data-count="total"><strong>${o.machines.total}</strong> machines</li>
      <li data-count="running"><strong>${o.machines.running}</strong> running</li>
      <li data-count="stopped"><strong>${o.machines.stopped}</strong> stopped</li>
      <li><strong>${o.backups}</strong> backups</li>
      <li><strong>${o.alerts_open}</strong> open alerts</li>
    </ul>
    ${o.missing_nodes.length > 0 && html`<p class="muted">Nodes not answering (their machines' states may be stale): ${o.missing_nodes.join(', ')}</p>`}
    <${Section} id="quota-use" title="Quota">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Limit</th><th scope="col">Use</th></tr></thead>
        <tbody>${quotaRows.map(([k, label, fmt]) => {
          const used = o.usage[k], lim = o.quota[k];
          return html`<tr key=${k} data-quota=${k}><th scope="row">${label}</th><td>${fmt(used)}</td><td>${lim < 0 ? 'unlimited' : fmt(lim)}</td>
            <td>${lim > 0 ? html`<meter min="0" max=${lim} value=${used} high=${lim * 0.9} aria-label=${`${label}: ${used} of ${lim}`}>${Math.round((100 * used) / lim)}%</meter>
              ${Math.round((100 * used) / lim)}%` : lim === 0 ? 'none allowed' : ''}</td></tr>`;
        })}</tbody>
      </table></div>
    <//>`}
    <${Trends} q=${q} />
    <${Traffic} q=${q} />
    <${Usage} path=${`/api/client/usage${q ? `?${q}` : ''}`} />
  </main>`;
}

const trendRows = [['cpu_core_hours', 'CPU core hours', (v) => v.toFixed(1)], ['memory_gb_hours', 'Memory GB hours', (v) => v.toFixed(1)],
  ['net_in_bytes', 'Traffic in', bytes], ['net_out_bytes', 'Traffic out', bytes]];

// Bars is a day-by-day bar chart of one trend as an inline SVG (attributes, not
// styles: the policy allows no inline style), the last point at the right end of a
// span of days; its words are the table below it.
function Bars({ points, k, days }) {
  const max = Math.max(...points.map((p) => p[k]), 0);
  const w = 6, first = Math.max(days, points.length) - points.length;
  return html`<svg class="bars" viewBox=${`0 0 ${Math.max(days, points.length) * w} 40`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
    ${points.map((p, i) => {
      const h = max > 0 ? Math.max((38 * p[k]) / max, p[k] > 0 ? 1 : 0) : 0;
      return html`<rect x=${(first + i) * w + 1} y=${40 - h} width=${w - 2} height=${h}><title>${p.date}</title></rect>`;
    })}
  </svg>`;
}

// Trends shows the daily use of the last days: a bar chart and the sum of each.
function Trends({ q }) {
  const [days, setDays] = useState(30);
  const { v: t, e } = useGet(`/api/client/usage-trends?days=${days}${q ? `&${q}` : ''}`);
  return html`<${Section} id="trends" title="Usage trends">
    <div class="inline-form" role="group" aria-label="Days">
      ${[7, 30, 90].map((d) => html`<button type="button" aria-pressed=${d === days ? 'true' : 'false'} onClick=${() => setDays(d)}>${d} days</button>`)}
    </div>
    <${ProblemView} error=${e} />
    ${t && html`${t.missing_machines.length > 0 && html`<p class="muted">Left out (their graphs could not be read): ${t.missing_machines.join(', ')}</p>`}
      <div class="chart-grid">${trendRows.map(([k, label, fmt]) => {
        const sum = t.points.reduce((a, p) => a + p[k], 0);
        const last = t.points[t.points.length - 1];
        return html`<figure class="chart" key=${k} data-trend=${k}><figcaption>${label}</figcaption>
          <${Bars} points=${t.points} k=${k} days=${t.days} />
          <p>${fmt(sum)} over ${t.days} days${last ? `, ${fmt(last[k])} on ${last.date}` : ''}.</p></figure>`;
      })}</div>
      <details><summary>Day by day</summary><div class="table-wrap" tabindex="0"><table data-trends>
        <thead><tr><th scope="col">Day</th>${trendRows.map(([, label]) => html`<th scope="col">${label}</th>`)}</tr></thead>
        <tbody>${t.points.map((p) => html`<tr key=${p.date}><td>${p.date}</td>${trendRows.map(([k, , fmt]) => html`<td>${fmt(p[k])}</td>`)}</tr>`)}</tbody>
      </table></div></details>`}
  <//>`;
}

// Traffic lists each machine's traffic this month against its allowance (the
// machines of the first page of the list).
function Traffic({ q }) {
  const [rows, setRows] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    const sep = q ? `?${q}` : '';
    call('GET', `/api/client/machines?limit=100${q ? `&${q}` : ''}`)
      .then((p) => Promise.all(p.items.map((m) => call('GET', `/api/client/machines/${encodeURIComponent(m.id)}/traffic${sep}`)
        .then((tr) => ({ m, tr }), (err) => ({ m, err })))))
      .then((r) => live && setRows(r), (err) => live && setError(err));
    return () => { live = false; };
  }, [q]);
  return html`<${Section} id="traffic" title="Traffic this month">
    <${ProblemView} error=${error} />
    ${rows && (rows.length === 0 ? html`<p>No machines yet.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Used</th><th scope="col">Allowance</th><th scope="col">Left</th></tr></thead>
      <tbody>${rows.map(({ m, tr, err }) => html`<tr key=${m.id} data-traffic=${m.name}><td>${m.name}</td>
        ${err ? html`<td colspan="3">${err.title}${err.detail ? `: ${err.detail}` : ''}</td>` : html`
          <td>${bytes(tr.total_bytes)} (in ${bytes(tr.in_bytes)}, out ${bytes(tr.out_bytes)})</td>
          <td>${tr.allowance_bytes == null ? 'no allowance' : bytes(tr.allowance_bytes)}</td>
          <td data-left>${tr.remaining_bytes == null ? '' : bytes(tr.remaining_bytes)}${tr.exceeded ? html` <span class="badge s-error">exceeded: ${tr.exceeded.action}</span>` : ''}</td>`}</tr>`)}</tbody>
    </table></div>`)}
  <//>`;
}
