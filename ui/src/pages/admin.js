// The operator's pages: the dashboard, every machine, filtered and paged, and the
// nodes. Loaded only when an operator opens them (a tenant's browser never fetches
// this code).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { Problem, call, renew, session } from '../api.js';
import { listen } from '../live.js';
import { ProblemView, Section, Status, bytes, gb, mb, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { lazy } from '../lazy.js';
import { CreateMachine } from './machines.js';
import { locationName, useLocations } from '../location.js';
import { tenantsPath, useList } from '../choices.js';

const Graphs = lazy(() => import('../graphs.js'), 'Graphs');

// machineLink is the operator's page of a machine, naming its tenant (the client
// area's routes act for a tenant an operator names).
const machineLink = (id, tenant) => `/admin/machines/${encodeURIComponent(id)}${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ''}`;

const statuses = ['', 'provisioning', 'running', 'stopped', 'suspended', 'migrating', 'error'];

// sortKeys are the columns a page of machines sorts by. The API pages in creation
// order and has no sort of its own, so a sort orders the page shown (50 machines),
// never the 10,000 behind it: the filters, which the API applies, are what narrow a
// large fleet.
const sortKeys = [['name', 'Name'], ['status', 'Status'], ['node', 'Node'], ['tenant_id', 'Tenant']];
const byKey = (k, dir) => (a, b) => dir * String(a[k] ?? '').localeCompare(String(b[k] ?? ''), undefined, { numeric: true });

// SortHeader is a column's header with a button that sorts the page by it (again:
// the other way), its state told to screen readers by aria-sort.
const SortHeader = ({ k, label, sort, setSort }) => {
  const on = sort.key === k;
  return html`<th scope="col" aria-sort=${on ? (sort.dir > 0 ? 'ascending' : 'descending') : undefined}>
    <button type="button" class="sort" data-sort=${k} onClick=${() => setSort({ key: k, dir: on ? -sort.dir : 1 })}>${label}${on ? (sort.dir > 0 ? ' ▲' : ' ▼') : ''}</button></th>`;
};

export function AdminMachines() {
  const [filter, setFilter] = useState({ name: '', status: '', node: '', tenant_id: '' });
  const [cursors, setCursors] = useState(['']);
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const cursor = cursors[cursors.length - 1];
  const [sort, setSort] = useState({ key: '', dir: 1 });
  const rows = page && (sort.key ? [...page.items].sort(byKey(sort.key, sort.dir)) : page.items);
  const { names } = useLocations();

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
    <${CreateMachine} admin onCreated=${(r) => setPage((p) => p && { ...p, items: [r.machine, ...p.items.filter((x) => x.id !== r.machine.id)] })} />
    <form class="filters" onSubmit=${apply} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${filter.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${filter.status}>
        ${statuses.map((s) => html`<option value=${s}>${s || 'any'}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${filter.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${filter.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table data-machines>
      <caption class="sr-only">Machines${sort.key ? ', this page sorted' : ''}</caption>
      <thead><tr>${sortKeys.map(([k, label]) => html`<${SortHeader} k=${k} label=${label} sort=${sort} setSort=${setSort} />`)}<th scope="col">Location</th><th scope="col">Size</th></tr></thead>
      <tbody>${rows.map((m) => html`<tr key=${m.id}><td><a href=${machineLink(m.id, m.tenant_id)}>${m.name}</a></td><td><${Status} value=${m.status} /></td>
        <td>${m.node}</td><td>${m.tenant_id ? html`<a href=${`/admin/tenants/${encodeURIComponent(m.tenant_id)}`}>${m.tenant_id}</a>`
          : html`<${Assign} m=${m} onAssigned=${(x) => setPage((p) => p && { ...p, items: p.items.map((y) => (y.id === x.id ? { ...y, ...x } : y)) })} />`}</td>
        <td data-location>${locationName(names, m.location_id)}</td><td>${m.cpu_cores} CPU, ${mb(m.memory_mb)}, ${gb(m.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No machine${Object.values(filter).some(Boolean) ? ' matches' : 's yet'}.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous</button>
      <button disabled=${!page.next_cursor} onClick=${() => setCursors([...cursors, page.next_cursor])}>Next</button>
      <span class="muted" data-page-number>Page ${cursors.length}${sort.key ? ', sorted on this page' : ''}</span>
    </nav>`}
  </main>`;
}

// Assign hands a machine of no tenant (one the sync found on the hypervisor) to a
// tenant: PATCH /api/resources/machines/{id} {tenant_id}, done at once (its addresses
// go with it). Its page, which acts through the tenant's routes, opens after that.
function Assign({ m, onAssigned }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState(null);
  const tenants = useList(open ? tenantsPath : null);
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    try { onAssigned(await call('PATCH', `/api/resources/machines/${encodeURIComponent(m.id)}`, { tenant_id: String(new FormData(e.target).get('tenant_id')) })); setOpen(false); } catch (err) { setError(err); }
  };
  if (!open) return html`<button type="button" data-assign=${m.name} onClick=${() => setOpen(true)}>Give to a tenant</button>`;
  return html`<form class="inline-form" onSubmit=${save} aria-label=${`Give ${m.name} to a tenant`}>
    <${ProblemView} error=${error || tenants?.error} />
    <label class="field"><span>Tenant</span><select name="tenant_id" required>
      ${(tenants?.items || []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select></label>
    <button type="submit">Give</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}

const pct = (part, whole) => (whole > 0 ? `${Math.round((100 * part) / whole)}%` : '');

export function Nodes() {
  const [n, setN] = useState(0);
  return html`<main id="main">
    <h1>Nodes</h1>
    <${Sync} onDone=${() => setN((x) => x + 1)} />
    <${StoreBackup} />
    <${NodeTable} key=${n} />
  </main>`;
}

// StoreBackup downloads a backup of the whole store (GET /api/admin/backup, the file
// `vmplane restore` takes). The page reads it with its access token into memory (a
// Blob) and hands it to the browser as a download: a link could not carry the token.
// An answer cut short fails here (fetch rejects a chunked body without its end), and
// the restore would refuse it anyway (its last line is a SHA-256 of the rest).
function StoreBackup() {
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  const [error, setError] = useState(null);
  const take = async () => {
    setBusy(true); setError(null); setDone('');
    try {
      const get = () => fetch('/api/admin/backup', { headers: { Authorization: `Bearer ${session.value.token}`, 'X-Vmplane-CSRF': '1' } });
      let res = await get();
      if (res.status === 401) { await renew(); res = await get(); }
      if (!res.ok) throw new Problem(await res.json().catch(() => ({})), res.status);
      const blob = await res.blob();
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `vmplane-store-${new Date().toISOString().replace(/[:.]/g, '-')}.backup`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 60000);
      setDone(`Saved ${a.download} (${bytes(blob.size)}).`);
    } catch (e) {
      setError(e instanceof Problem ? e : new Problem({ title: 'The backup broke off', detail: String(e.message || e) }, 0));
    } finally {
      setBusy(false);
    }
  };
  return html`<div>
    <button type="button" data-store-backup disabled=${busy} onClick=${take}>${busy ? 'Taking the backup…' : 'Download a backup of the store'}</button>
    <${ProblemView} error=${error} />
    <p role="status" data-store-saved>${done}</p>
  </div>`;
}

// Sync asks for a reconciliation with the hypervisor now (POST /api/virt/sync, which
// also runs at start and every --sync-interval) and says what it changed.
function Sync({ onDone }) {
  const [r, setR] = useState(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const sync = async () => {
    setBusy(true); setError(null); setR(null);
    try { setR(await call('POST', '/api/virt/sync')); onDone(); } catch (e) { setError(e); } finally { setBusy(false); }
  };
  return html`<div>
    <button type="button" data-sync disabled=${busy} onClick=${sync}>${busy ? 'Syncing…' : 'Sync with the hypervisor now'}</button>
    <${ProblemView} error=${error} />
    <p role="status" data-synced>${r ? `Synced in ${r.duration_ms} ms: ${r.nodes} nodes; machines ${r.machines.added} added, ${r.machines.updated} updated, ${r.machines.removed} removed; backups ${r.backups?.adopted ?? 0} adopted, ${r.backups?.removed ?? 0} removed${r.locations_unavailable?.length ? `; not answering: ${r.locations_unavailable.join(', ')}` : ''}.` : ''}</p>
  </div>`;
}

// NodeTable lists the nodes with their use of CPU, memory and disk.
function NodeTable() {
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { call('GET', '/api/virt/nodes?limit=500').then(setPage, setError); }, []);
  return html`<div>
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${page.items.map((n) => html`<tr key=${n.id}><td>${n.name}</td><td><${Status} value=${n.status} /></td>
        <td>${n.cpu_cores} cores, ${Math.round((n.usage?.cpu || 0) * 100)}% busy</td>
        <td>${mb(n.memory_mb)}, ${pct(n.usage?.mem_bytes || 0, n.memory_mb * 1048576)} used</td>
        <td>${gb(n.disk_gb)}, ${pct(n.usage?.disk_bytes || 0, n.disk_gb * 1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`;
}

const ratio = (r) => (r == null ? '' : `${Math.round(r * 100)}%`);

// Dashboard is the operator's first page: the cluster's counts and capacity, the
// nodes, the cluster's usage graphs, the open alerts (acknowledge one), the capacity
// forecast and the machines to look at.
export function Dashboard() {
  const [o, setO] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { call('GET', '/api/monitoring/overview').then(setO, setError); }, []);
  return html`<main id="main">
    <h1>Dashboard</h1>
    <${ProblemView} error=${error} />
    ${o && html`<ul class="stats" aria-label="Cluster">
      <li><strong>${o.nodes.online}/${o.nodes.total}</strong> nodes online</li>
      <li><strong>${o.machines.running}/${o.machines.total}</strong> machines running${o.machines.error ? html`, <span class="s-error">${o.machines.error} in error</span>` : ''}</li>
      <li><strong>${o.alerts.firing}</strong> alerts firing (${o.alerts.critical} critical)</li>
      <li><strong>${o.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${ratio(o.capacity.cpu.ratio)}</strong> (${o.capacity.cpu.used_cores}/${o.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${ratio(o.capacity.memory.ratio)}</strong> (${mb(o.capacity.memory.used_mb)}/${mb(o.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${ratio(o.capacity.disk.ratio)}</strong> (${gb(o.capacity.disk.used_gb)}/${gb(o.capacity.disk.total_gb)})</li>
    </ul>`}
    <${Server} />
    <${Section} id="dash-nodes" title="Nodes"><${NodeTable} /><//>
    <${Section} id="dash-graphs" title="Cluster usage"><${Graphs} url="/api/virt/cluster/usage-graphs" /><//>
    <${Alerts} />
    <${Forecast} />
    <${Faulty} />
  </main>`;
}

// Server says how this server is (GET /api/health): its version and uptime, and its
// checks (the store, the hypervisor, each other location's). A degraded server answers
// 503 with the same body, so the page reads it whatever the status.
function Server() {
  const [h, setH] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    fetch('/api/health', { cache: 'no-store' }).then((r) => r.json()).then(setH, (e) => setError(new Problem({ title: 'No answer from /api/health', detail: String(e.message || e) }, 0)));
  }, []);
  const checks = h ? Object.entries(h.checks || {}).flatMap(([k, v]) => (v && typeof v === 'object' ? Object.entries(v).map(([l, x]) => [`location ${l}`, x]) : [[k, v]])) : [];
  return html`<${ProblemView} error=${error} />
    ${h && html`<p data-server=${h.status}>Server <span class=${`badge s-${h.status === 'ok' ? 'running' : 'error'}`}>${h.status}</span>
      version ${h.version}, up ${Math.floor(h.uptime_s / 3600)} h ${Math.floor((h.uptime_s % 3600) / 60)} min;
      ${checks.map(([k, v], i) => html`${i ? ', ' : ''}<span data-check-of=${k}>${k} ${v}</span>`)}.</p>`}`;
}

// Alerts lists the open alert events (firing and acknowledged), and acknowledges one.
function Alerts() {
  const [items, setItems] = useState(null);
  const [error, setError] = useState(null);
  const load = () => Promise.all(['firing', 'acknowledged'].map((s) => call('GET', `/api/monitoring/alerts/events?status=${s}&limit=200`)))
    .then(([f, a]) => setItems([...f.items, ...a.items]), setError);
  useEffect(() => { load(); }, []);
  const ack = (a) => call('PATCH', `/api/monitoring/alerts/events/${encodeURIComponent(a.id)}`, { status: 'acknowledged' }).then(load, setError);
  return html`<${Section} id="dash-alerts" title="Open alerts">
    <${ProblemView} error=${error} />
    ${items && (items.length === 0 ? html`<p>No open alerts.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${items.map((a) => html`<tr key=${a.id} data-alert=${a.id}><td><span class=${`badge sev-${a.severity}`}>${a.severity}</span></td>
        <td>${a.message} <span class="muted">${a.kind} ${a.target_type} ${a.target_id}</span></td><td>${when(a.started_at)}</td>
        <td><${Status} value=${a.status} /></td>
        <td>${a.status === 'firing' ? html`<${Confirm} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${() => ack(a)} />` : ''}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`;
}

const forecastValue = (r, v) => (r.unit === 'bytes' ? bytes(v) : `${v.toFixed(1)} ${r.unit}`);

// Forecast shows when each resource runs out at its trend.
function Forecast() {
  const [f, setF] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { call('GET', '/api/monitoring/insights/cluster-forecast?horizon_days=90').then(setF, setError); }, []);
  return html`<${Section} id="dash-forecast" title="Capacity forecast (90 days)">
    <${ProblemView} error=${error} />
    ${f && html`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${f.resources.map((r) => html`<tr key=${r.resource}><td>${r.resource}</td><td>${forecastValue(r, r.used)}</td><td>${forecastValue(r, r.capacity)}</td>
        <td>${forecastValue(r, r.trend_per_day)}</td><td>${r.exhausted_at || 'not within the horizon'}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`;
}

// Faulty lists the machines to look at, each with its reason.
function Faulty() {
  const [f, setF] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => { call('GET', '/api/monitoring/insights/faulty-deployments').then(setF, setError); }, []);
  return html`<${Section} id="dash-faulty" title="Faulty deployments">
    <${ProblemView} error=${error} />
    ${f && (f.items.length === 0 ? html`<p>None.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${f.items.map((d) => html`<tr key=${d.machine_id}><td><a href=${machineLink(d.machine_id, d.tenant_id)}>${d.name}</a></td>
        <td>${d.reason}</td><td>${d.failed_tasks}</td><td>${d.last_error || ''}</td><td>${when(d.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`;
}
