// The operator's pages: every machine, filtered and paged, and the nodes. Loaded
// only when an operator opens them (a tenant's browser never fetches this code).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { listen } from '../live.js';
import { ProblemView, Status, gb, mb } from '../format.js';

const statuses = ['', 'provisioning', 'running', 'stopped', 'suspended', 'migrating', 'error'];

export function AdminMachines() {
  const [filter, setFilter] = useState({ name: '', status: '', node: '', tenant_id: '' });
  const [cursors, setCursors] = useState(['']);
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    const q = new URLSearchParams({ limit: '50' });
    for (const [k, v] of Object.entries(filter)) if (v) q.set(k, v);
    if (cursor) q.set('cursor', cursor);
    setError(null);
    call('GET', `/api/resources/machines?${q}`).then(setPage, setError);
  }, [filter, cursor]);

  useEffect(() => listen((type, m) => {
    if (type === 'machine.updated') setPage((p) => p && { ...p, items: p.items.map((x) => (x.id === m.id ? { ...x, ...m } : x)) });
    if (type === 'machine.deleted') setPage((p) => p && { ...p, items: p.items.filter((x) => x.id !== m.id) });
  }), []);

  const apply = (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setFilter(Object.fromEntries(Object.keys(filter).map((k) => [k, (f.get(k) || '').trim()])));
    setCursors(['']);
  };

  return html`<main id="main">
    <h1>All machines</h1>
    <form class="filters" onSubmit=${apply} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${filter.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${filter.status}>
        ${statuses.map((s) => html`<option value=${s}>${s || 'any'}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${filter.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${filter.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Node</th><th scope="col">Tenant</th><th scope="col">Size</th></tr></thead>
      <tbody>${page.items.map((m) => html`<tr key=${m.id}><td>${m.name}</td><td><${Status} value=${m.status} /></td>
        <td>${m.node}</td><td>${m.tenant_id || ''}</td><td>${m.cpu_cores} CPU, ${mb(m.memory_mb)}, ${gb(m.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    <nav class="pager" aria-label="Pages">
      <button disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous</button>
      <button disabled=${!page.next_cursor} onClick=${() => setCursors([...cursors, page.next_cursor])}>Next</button>
    </nav>`}
  </main>`;
}

const pct = (part, whole) => (whole > 0 ? `${Math.round((100 * part) / whole)}%` : '');

export function Nodes() {
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { call('GET', '/api/virt/nodes?limit=500').then(setPage, setError); }, []);
  return html`<main id="main">
    <h1>Nodes</h1>
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${page.items.map((n) => html`<tr key=${n.id}><td>${n.name}</td><td><${Status} value=${n.status} /></td>
        <td>${n.cpu_cores} cores, ${Math.round((n.usage?.cpu || 0) * 100)}% busy</td>
        <td>${mb(n.memory_mb)}, ${pct(n.usage?.mem_bytes || 0, n.memory_mb * 1048576)} used</td>
        <td>${gb(n.disk_gb)}, ${pct(n.usage?.disk_bytes || 0, n.disk_gb * 1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </main>`;
}
