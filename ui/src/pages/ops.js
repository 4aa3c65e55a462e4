// The operator's audit log and health checks. The audit log (GET /api/audit) is
// filtered by actor, action, target and time, and paged with the API's cursors. The
// health checks are listed with their latest result, added, edited in place and
// deleted, and the alert events (filtered by status, severity and kind, the filter
// kept in the URL) acknowledged; an event resolves by itself when its condition
// clears (the check passes again, or is deleted): the API has no resolve of its own.
// A chunk of its own.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { listen } from '../live.js';
import { go, path as here } from '../router.js';
import { Field, ProblemView, Section, Status, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { numbers, usePaged, useFocusFirst, useRun } from '../paging.js';

// rfc3339 reads a datetime-local input (the browser's local time) as an RFC 3339 time.
const rfc3339 = (v) => (v ? new Date(v).toISOString() : '');

const auditFilters = [['actor', 'Actor (user or key id)'], ['action', 'Action (POST /api/...)'], ['target', 'Target (id or kind/id)']];

export function Audit() {
  const [filter, setFilter] = useState({ limit: '50' });
  const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v));
  const { page, error, pager } = usePaged(`/api/audit?${q}`);
  const apply = (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const next = { limit: String(f.get('limit')) };
    for (const [k] of auditFilters) next[k] = String(f.get(k)).trim();
    next.since = rfc3339(f.get('since'));
    next.until = rfc3339(f.get('until'));
    setFilter(next);
  };
  return html`<main id="main">
    <h1>Audit log</h1>
    <form class="filters" onSubmit=${apply} role="search" aria-label="Filter the audit log">
      ${auditFilters.map(([k, label]) => html`<${Field} name=${k} label=${label} error=${error} />`)}
      <${Field} name="since" label="Since" error=${error} type="datetime-local" />
      <${Field} name="until" label="Until" error=${error} type="datetime-local" />
      <label class="field"><span>A page</span><select name="limit">${['20', '50', '200'].map((n) => html`<option value=${n} selected=${n === filter.limit}>${n}</option>`)}</select></label>
      <button type="submit">Filter</button>
    </form>
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table data-audit>
      <caption class="sr-only">Audit log, newest first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Tenant</th><th scope="col">Result</th><th scope="col">Client</th></tr></thead>
      <tbody>${page.items.map((a) => html`<tr key=${a.id} data-entry=${a.id}><td>${when(a.time)}</td>
        <td>${a.actor || 'unknown'}${a.actor_kind === 'api_key' ? ' (API key)' : ''}</td><td data-action>${a.action}</td>
        <td>${a.target_kind ? `${a.target_kind}/` : ''}${a.target_id || ''}</td><td>${a.tenant_id || ''}</td>
        <td>${a.result}${a.reason ? html`<span class="muted">: ${a.reason}</span>` : ''}</td><td>${a.client || ''}</td></tr>`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No entries.</p>`}
    ${pager}`}
  </main>`;
}

// The routes of the operators' page (/admin/health) and of a tenant's (/health): a
// tenant's users keep their tenant's checks (of their own machines' addresses) and
// alert events through the resource routes, which scope them to their tenant.
const operatorRoutes = { checks: '/api/monitoring/health-checks', alerts: '/api/monitoring/alerts/events', page: '/admin/health' };
const tenantRoutes = { checks: '/api/resources/health-checks', alerts: '/api/resources/alert-events', page: '/health' };

// checkState is a check's state in words from its latest result.
const checkState = (c) => (!c.enabled ? 'disabled' : c.last?.status || 'unknown');

export function Health({ tenant }) {
  const r = tenant ? tenantRoutes : operatorRoutes;
  const checksPath = r.checks;
  const { page, error, reload, pager } = usePaged(`${checksPath}?limit=50`);
  const [problem, run] = useRun();
  const [open, setOpen] = useState(false);
  useEffect(() => listen((type) => { if (type === 'alert.updated') reload(); }), [reload]);
  const add = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: f.get('name'), type: f.get('type'), target: f.get('target'),
      ...numbers(f, ['interval_s', 'timeout_ms', 'expected_status', 'failure_threshold']) };
    for (const k of ['tenant_id', 'machine_id']) if (f.get(k)) body[k] = f.get(k);
    if (await run(() => call('POST', checksPath, body))) { setOpen(false); reload(); }
  };
  const del = (c) => run(() => call('DELETE', `${checksPath}/${encodeURIComponent(c.id)}`)).then(reload);
  const [editing, setEditing] = useState(null);
  return html`<main id="main">
    <h1>Health checks</h1>
    ${tenant && html`<p class="muted">A check probes one of your machines' addresses (an IP address, never a name: <code>192.0.2.10:22</code> for tcp, <code>http://192.0.2.10/health</code> for http) and raises an alert when it fails.</p>`}
    ${open ? html`<form class="card" onSubmit=${add} aria-label="New health check">
        <${ProblemView} error=${problem} />
        <div class="grid">
          <${Field} name="name" label="Name" error=${problem} required maxlength="100" />
          <label class="field"><span>Type</span><select name="type"><option value="http">http (a URL)</option><option value="tcp">tcp (host:port)</option></select></label>
          <${Field} name="target" label="Target" error=${problem} required />
          <${Field} name="interval_s" label="Every (seconds)" error=${problem} type="number" min="1" max="86400" placeholder="60" />
          <${Field} name="timeout_ms" label="Timeout (ms)" error=${problem} type="number" min="100" max="60000" placeholder="5000" />
          <${Field} name="failure_threshold" label="Failures before it fails" error=${problem} type="number" min="0" max="100" placeholder="3" />
          <${Field} name="expected_status" label="HTTP status expected (blank: 2xx or 3xx)" error=${problem} type="number" min="0" max="599" />
          ${!tenant && html`<${Field} name="tenant_id" label="Tenant (optional)" error=${problem} />`}
          <${Field} name="machine_id" label="Machine (optional)" error=${problem} />
        </div>
        <button type="submit" class="primary">Create</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
      </form>`
      : html`<button class="primary" onClick=${() => setOpen(true)}>New health check</button>`}
    <${ProblemView} error=${error || (!open && problem)} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Health checks</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Probe</th><th scope="col">State</th><th scope="col">Last probe</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((c) => html`<tr key=${c.id} data-check=${c.name}><td>${c.name}</td>
        <td>${c.type} ${c.target}, every ${c.interval_s} s</td>
        <td><${Status} value=${checkState(c)} />${c.last?.consecutive_failures ? ` ${c.last.consecutive_failures} failed in a row` : ''}</td>
        <td>${c.last?.checked_at ? `${when(c.last.checked_at)}, ${Math.round(c.last.latency_ms)} ms` : 'not yet'}${c.last?.error ? html`<span class="muted">: ${c.last.error}</span>` : ''}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${editing === c.id ? 'true' : 'false'} onClick=${() => setEditing(editing === c.id ? null : c.id)}>Edit</button>
          <${Confirm} name="delete-check" label="Delete" yes="Yes, delete" question=${`Delete the check ${c.name}? Its alert resolves.`} onYes=${() => del(c)} /></td></tr>
        ${editing === c.id && html`<tr key=${`${c.id}-edit`} class="edit-row"><td colspan="5">
          <${EditCheck} c=${c} checksPath=${checksPath} onCancel=${() => setEditing(null)} onSaved=${() => { setEditing(null); reload(); }} />
        </td></tr>`}`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No health checks yet.</p>`}
    ${pager}`}
    <${CheckAlerts} routes=${r} />
  </main>`;
}

// EditCheck edits a check in place: only the fields changed are sent (a PATCH), the
// API's field errors next to their fields; Escape cancels.
function EditCheck({ c, checksPath, onSaved, onCancel }) {
  const [error, run] = useRun();
  const first = useFocusFirst();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const now = { name: String(f.get('name')).trim(), target: String(f.get('target')).trim(), enabled: f.get('enabled') === 'on',
      ...numbers(f, ['interval_s', 'timeout_ms', 'expected_status', 'failure_threshold']) };
    const patch = Object.fromEntries(Object.entries(now).filter(([k, v]) => v !== c[k]));
    if (Object.keys(patch).length === 0) { onCancel(); return; }
    if (await run(() => call('PATCH', `${checksPath}/${encodeURIComponent(c.id)}`, patch))) onSaved();
  };
  return html`<form onSubmit=${submit} aria-label=${`Edit ${c.name}`} onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} defaultValue=${c.name} inputRef=${first} required maxlength="100" />
      <${Field} name="target" label=${c.type === 'tcp' ? 'Target (host:port)' : 'Target (a URL)'} error=${error} defaultValue=${c.target} required />
      <${Field} name="interval_s" label="Every (seconds)" error=${error} type="number" min="1" max="86400" defaultValue=${c.interval_s} required />
      <${Field} name="timeout_ms" label="Timeout (ms)" error=${error} type="number" min="100" max="60000" defaultValue=${c.timeout_ms} required />
      <${Field} name="failure_threshold" label="Failures before it fails" error=${error} type="number" min="1" max="100" defaultValue=${c.failure_threshold} required />
      <${Field} name="expected_status" label="HTTP status expected (0: 2xx or 3xx)" error=${error} type="number" min="0" max="599" defaultValue=${c.expected_status} required />
    </div>
    <label class="check"><input type="checkbox" name="enabled" defaultChecked=${c.enabled} /> Enabled</label>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

const alertKinds = ['health_check', 'node_offline', 'task_failed', 'node_usage_high', 'firewall_failed', 'hypervisor_unavailable', 'webhook_disabled', 'traffic_exceeded'];

// alertFilter reads the alert events' filter from the page's query (status, severity
// and kind: a reload or a shared link keeps it); the kind is the checks' unless the
// query names another, or `all`.
function alertFilter(p) {
  const q = new URLSearchParams(p.split('?')[1] || '');
  return { status: q.get('status') || 'firing', severity: q.get('severity') || '', kind: q.get('kind') || 'health_check' };
}

// CheckAlerts lists the alert events of a status, severity and kind (the health
// checks' by default), live from the event stream, and acknowledges a firing one.
function CheckAlerts({ routes }) {
  const { status, severity, kind } = alertFilter(here.value);
  const set = (k, v) => {
    const q = new URLSearchParams({ status, severity, kind, [k]: v });
    if (!q.get('severity')) q.delete('severity');
    go(`${routes.page}?${q}`, true, true);
  };
  const q = new URLSearchParams({ limit: '50', status });
  if (severity) q.set('severity', severity);
  if (kind !== 'all') q.set('kind', kind);
  const { page, error, reload, pager } = usePaged(`${routes.alerts}?${q}`);
  const [problem, run] = useRun();
  useEffect(() => listen((type) => { if (type === 'alert.updated') reload(); }), [reload]);
  const ack = (a) => run(() => call('PATCH', `${routes.alerts}/${encodeURIComponent(a.id)}`, { status: 'acknowledged' })).then(reload);
  return html`<${Section} id="check-alerts" title="Alert events">
    <div class="inline-form" role="group" aria-label="Status">
      ${['firing', 'acknowledged', 'resolved'].map((s) => html`<button type="button" aria-pressed=${s === status ? 'true' : 'false'} onClick=${() => set('status', s)}>${s}</button>`)}
    </div>
    <div class="filters">
      <label class="field"><span>Severity</span><select name="severity" value=${severity} onChange=${(e) => set('severity', e.target.value)}>
        ${['', 'info', 'warning', 'critical'].map((v) => html`<option value=${v}>${v || 'any'}</option>`)}</select></label>
      <label class="field"><span>Kind</span><select name="kind" value=${kind} onChange=${(e) => set('kind', e.target.value)}>
        ${[...alertKinds, 'all'].map((v) => html`<option value=${v}>${v === 'all' ? 'any' : v.replace(/_/g, ' ')}</option>`)}</select></label>
    </div>
    <${ProblemView} error=${error || problem} />
    ${page && (page.items.length === 0 ? html`<p>No ${status} alert events.</p>` : html`<div class="table-wrap" tabindex="0"><table data-alerts>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((a) => html`<tr key=${a.id} data-alert=${a.target_id}><td><span class=${`badge sev-${a.severity}`}>${a.severity}</span></td>
        <td>${a.message}${kind === 'all' ? html` <span class="muted">${a.kind.replace(/_/g, ' ')}</span>` : ''}</td><td>${when(a.started_at)}</td>
        <td><${Status} value=${a.status} />${a.resolved_at ? ` ${when(a.resolved_at)}` : ''}</td>
        <td>${a.status === 'firing' ? html`<${Confirm} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${() => ack(a)} />` : ''}</td></tr>`)}</tbody>
    </table></div>`)}
    ${pager}
  <//>`;
}
