// The operators' backups (/admin/backups): every tenant's, newest last as the API
// pages them, filtered by tenant and machine; one restored into a new machine (a
// deleted machine's too: POST /api/virt/backups/{id}/restore, within the tenant's
// quota, with a name, a node, the tenant and whether it starts), its task followed
// and the new machine's page linked; one deleted. A chunk of its own.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, Status, bytes, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { tenantsPath, useList } from '../choices.js';
import { usePaged, useRun } from '../paging.js';
import { tasks } from '../live.js';

const base = '/api/resources/backups';

// TaskLine is the restore's task, as its events arrive (not the machine page's, whose
// module would then leave the first load's chunk for a shared one, one file more).
function TaskLine({ task }) {
  const t = tasks.value[task.id] || task;
  return html`<span class="task" aria-live="polite">${t.type}: <${Status} value=${t.status} />${t.error ? html` <span class="field-error">${t.error}</span>` : ''}</span>`;
}

// Restore restores a backup into a new machine and shows its task and machine.
function Restore({ b, tenants, onCancel }) {
  const [error, run] = useRun();
  const [made, setMade] = useState(null);
  const [nodes, setNodes] = useState([]);
  const first = useRef(null);
  useEffect(() => { first.current?.focus(); call('GET', '/api/virt/nodes?limit=500').then((p) => setNodes(p.items), () => {}); }, []);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { start_after: f.get('start_after') === 'on' };
    for (const k of ['name', 'node', 'tenant_id']) if (String(f.get(k) || '').trim()) body[k] = String(f.get(k)).trim();
    await run(async () => setMade(await call('POST', `/api/virt/backups/${encodeURIComponent(b.id)}/restore`, body)));
  };
  if (made) {
    return html`<div role="status" data-restored>
      <p>Restoring into <a href=${`/admin/machines/${encodeURIComponent(made.machine.id)}?tenant=${encodeURIComponent(made.machine.tenant_id || '')}`}>${made.machine.name}</a>:
        <${TaskLine} task=${made.task} /></p>
      <button type="button" onClick=${onCancel}>Close</button></div>`;
  }
  return html`<form onSubmit=${submit} aria-label="Restore into a new machine" onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="name" label="Name (blank: the backup's machine's)" error=${error} inputRef=${first} maxlength="63" spellcheck="false" />
      <label class="field"><span>Node</span><select name="node" aria-invalid=${error?.fields?.node ? 'true' : undefined}>
        <option value="">the hypervisor's choice</option>
        ${nodes.filter((n) => (n.location_id || n.location || 'default') === (b.location_id || 'default'))
          .map((n) => html`<option value=${n.id || n.name}>${n.name}</option>`)}</select>
        ${error?.fields?.node && html`<span class="field-error">${error.fields.node}</span>`}</label>
      <label class="field"><span>Tenant</span><select name="tenant_id" aria-invalid=${error?.fields?.tenant_id ? 'true' : undefined}>
        ${tenants.map((t) => html`<option value=${t.id} selected=${t.id === b.tenant_id}>${t.name}</option>`)}</select>
        ${error?.fields?.tenant_id && html`<span class="field-error">${error.fields.tenant_id}</span>`}</label>
    </div>
    <label class="check"><input type="checkbox" name="start_after" defaultChecked /> Start it once restored</label>
    <p class="muted">The new machine is made within the tenant's quota, with addresses of its own; the backup's machine, if it still exists, stays as it is.</p>
    <button type="submit" class="primary">Restore</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

export function Backups() {
  const [filter, setFilter] = useState({ tenant_id: '', machine_id: '' });
  const q = new URLSearchParams({ limit: '50' });
  for (const [k, v] of Object.entries(filter)) if (v) q.set(k, v);
  const { page, error, reload, pager } = usePaged(`${base}?${q}`);
  const tenants = useList(tenantsPath);
  const names = Object.fromEntries((tenants?.items || []).map((t) => [t.id, t.name]));
  const [restoring, setRestoring] = useState(null);
  const [problem, run] = useRun();
  const apply = (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setFilter({ tenant_id: String(f.get('tenant_id') || ''), machine_id: String(f.get('machine_id') || '').trim() });
  };
  const del = (b) => run(() => call('DELETE', `${base}/${encodeURIComponent(b.id)}`)).then((ok) => ok && reload());
  return html`<main id="main">
    <h1>Backups</h1>
    <form class="filters" role="search" aria-label="Filter the backups" onSubmit=${apply}>
      <label class="field"><span>Tenant</span><select name="tenant_id"><option value="">any</option>
        ${(tenants?.items || []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select></label>
      <label class="field"><span>Machine id</span><input name="machine_id" spellcheck="false" /></label>
      <button type="submit">Filter</button>
    </form>
    <${ProblemView} error=${error || problem} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Machine</th><th scope="col">Tenant</th><th scope="col">Size</th>
        <th scope="col">Mode, origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((b) => html`<tr key=${b.id} data-backup=${b.id}><td>${when(b.created_at)}</td>
        <td><a href=${`/admin/machines/${encodeURIComponent(b.machine_id)}?tenant=${encodeURIComponent(b.tenant_id)}`}>${b.machine_id}</a><br /><span class="muted">${b.node}</span></td>
        <td>${names[b.tenant_id] || b.tenant_id}</td><td>${bytes(b.size_bytes)}</td><td>${b.mode}, ${b.origin}</td><td>${b.note || ''}</td>
        <td class="row-actions"><button type="button" data-restore-new aria-expanded=${restoring === b.id ? 'true' : 'false'}
          onClick=${() => setRestoring(restoring === b.id ? null : b.id)}>Restore into a new machine</button>
          <${Confirm} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?" onYes=${() => del(b)} /></td></tr>
        ${restoring === b.id && html`<tr key=${`${b.id}-restore`} class="edit-row"><td colspan="7">
          <${Restore} b=${b} tenants=${tenants?.items || []} onCancel=${() => setRestoring(null)} /></td></tr>`}`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No backups${filter.tenant_id || filter.machine_id ? ' match' : ' yet'}.</p>`}
    ${pager}`}
  </main>`;
}
