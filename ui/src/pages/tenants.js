// The operator's tenants: the list (paged, filtered by name), a new tenant with its
// quotas, and a tenant's page: its quotas changed, suspended (why, and what happens to
// its machines) or unsuspended, its users (added, deleted) and its usage for invoices.
// A chunk of its own, loaded when an operator opens it.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, Section, when } from '../format.js';
import { Usage } from '../usage.js';
import { forget, tenantsPath } from '../choices.js';
import { go } from '../router.js';
import { Confirm } from '../confirm.js';
import { numbers, usePaged, useRun } from '../paging.js';

const base = '/api/resources/tenants';
const tenantLink = (id) => `/admin/tenants/${encodeURIComponent(id)}`;

// quotaFields are a tenant's limits as the form asks for them.
const quotaFields = [['machines', 'Machines'], ['cpu_cores', 'CPU cores'], ['memory_mb', 'Memory (MB)'], ['disk_gb', 'Disk (GB)'],
  ['backups', 'Backups'], ['backup_gb', 'Backup space (GB)'], ['snapshots', 'Snapshots']];
const limit = (v) => (v < 0 ? 'unlimited' : String(v));

// State is a tenant's state in words: active, or suspended with its reason.
const State = ({ t }) => (t.suspension
  ? html`<span class="badge s-suspended" data-state="suspended">suspended</span> <span data-reason>${t.suspension.reason}</span>`
  : html`<span class="badge s-running" data-state="active">active</span>`);

// quotaError names the API's quota.<limit> field errors by the inputs' names.
const quotaError = (e) => e && { ...e, fields: Object.fromEntries(Object.entries(e.fields).map(([k, v]) => [k.replace(/^(body\.)?quota\./, ''), v])) };

// QuotaInputs are the quota fields, filled with q's limits when given (blank keeps
// the default on create; -1 is unlimited).
const QuotaInputs = ({ q, error: problem }) => {
  const error = quotaError(problem);
  return html`<fieldset><legend>Quotas (-1 is unlimited${q ? '' : ', blank the default'})</legend><div class="grid">
  ${quotaFields.map(([k, label]) => html`<${Field} name=${k} label=${label} error=${error} type="number" min="-1" defaultValue=${q ? q[k] : undefined} />`)}
</div></fieldset>`;
};

// searchCap is how many tenants a name search reads at most (the API filters by
// external_id only, so the page reads the tenants and matches the names itself).
const searchCap = 10000;

// useNameSearch reads every tenant (500 a page, up to searchCap) while name is given,
// and answers those whose name contains it, or null.
function useNameSearch(name, n) {
  const [found, setFound] = useState(null);
  useEffect(() => {
    setFound(null);
    if (!name) return undefined;
    let live = true;
    (async () => {
      const all = [];
      let cursor = '';
      do {
        const p = await call('GET', `${base}?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        all.push(...p.items);
        cursor = p.next_cursor;
      } while (cursor && all.length < searchCap && live);
      const want = name.toLowerCase();
      if (live) setFound({ items: all.filter((t) => t.name.toLowerCase().includes(want)), read: all.length, more: !!cursor });
    })().catch((e) => live && setFound({ items: [], error: e }));
    return () => { live = false; };
  }, [name, n]);
  return found;
}

export function Tenants() {
  const [filter, setFilter] = useState({ name: '', external_id: '' });
  const { page, error, reload, pager } = usePaged(`${base}?limit=50${filter.external_id ? `&external_id=${encodeURIComponent(filter.external_id)}` : ''}`);
  const [n, setN] = useState(0);
  const found = useNameSearch(filter.name, n);
  const [open, setOpen] = useState(false);
  const [created, run] = useRun();
  const searching = !!filter.name;
  const shown = searching ? found?.items.filter((t) => !filter.external_id || t.external_id === filter.external_id) : page?.items;
  const create = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: f.get('name'), require_totp: f.get('require_totp') === 'on', quota: numbers(f, quotaFields.map(([k]) => k)) };
    if (f.get('external_id')) body.external_id = f.get('external_id');
    if (await run(() => call('POST', base, body))) { setOpen(false); forget(tenantsPath); reload(); setN((x) => x + 1); }
  };
  const apply = (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setFilter({ name: String(f.get('filter')).trim(), external_id: String(f.get('external_filter')).trim() });
  };
  return html`<main id="main">
    <h1>Tenants</h1>
    ${open
      ? html`<form class="card" onSubmit=${create} aria-label="New tenant">
          <${ProblemView} error=${created} />
          <div class="grid">
            <${Field} name="name" label="Name" error=${created} required maxlength="100" />
            <${Field} name="external_id" label="External id (optional)" error=${created} maxlength="128" />
          </div>
          <label class="check"><input type="checkbox" name="require_totp" /> Its users must use a second factor</label>
          <${QuotaInputs} error=${created} />
          <button type="submit" class="primary">Create</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
        </form>`
      : html`<button class="primary" onClick=${() => setOpen(true)}>New tenant</button>`}
    <form class="filters" role="search" aria-label="Filter tenants" onSubmit=${apply}>
      <label class="field"><span>Name contains</span><input name="filter" /></label>
      <label class="field"><span>External id</span><input name="external_filter" /></label>
      <button type="submit">Filter</button>
    </form>
    <${ProblemView} error=${error || found?.error} />
    ${searching && found && !found.error && html`<p role="status" data-matches>${found.items.length} of ${found.read} tenants match${found.more ? ` (only the first ${found.read} were read)` : ''}.</p>`}
    ${shown && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Tenants</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Machines</th><th scope="col">CPU</th><th scope="col">Memory (MB)</th><th scope="col">Disk (GB)</th></tr></thead>
      <tbody>${shown.map((t) => html`<tr key=${t.id} data-tenant=${t.name}><td><a href=${tenantLink(t.id)}>${t.name}</a></td><td><${State} t=${t} /></td>
        <td>${limit(t.quota.machines)}</td><td>${limit(t.quota.cpu_cores)}</td><td>${limit(t.quota.memory_mb)}</td><td>${limit(t.quota.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${shown.length === 0 && html`<p>No tenant${searching || filter.external_id ? ' matches' : ' yet'}.</p>`}
    ${!searching && pager}`}
  </main>`;
}

// Tenant is one tenant's page.
export function Tenant({ id }) {
  const [t, setT] = useState(null);
  const [error, setError] = useState(null);
  const path = `${base}/${encodeURIComponent(id)}`;
  useEffect(() => { call('GET', path).then(setT, setError); }, [path]);
  return html`<main id="main">
    <p><a href="/admin/tenants">All tenants</a></p>
    <h1>${t ? html`${t.name} <${State} t=${t} />` : 'Tenant'}</h1>
    <${ProblemView} error=${error} />
    ${t && html`
      <dl class="facts">
        <dt>Id</dt><dd>${t.id}</dd>
        ${t.external_id && html`<dt>External id</dt><dd>${t.external_id}</dd>`}
        <dt>Overview</dt><dd><a href=${`${tenantLink(t.id)}/overview`}>its machines, quota use, trends and traffic</a></dd>
        <dt>Second factor</dt><dd>${t.require_totp ? 'required' : 'optional'}</dd>
        ${t.suspension && html`<dt>Suspended</dt><dd data-suspension>since ${when(t.suspension.since)}, machines: ${t.suspension.action}${t.suspension.machines?.length ? ` (${t.suspension.machines.length})` : ''}</dd>`}
      </dl>
      <${Quotas} t=${t} path=${path} onChange=${setT} />
      <${Suspend} t=${t} path=${path} onChange=${setT} />
      <${Users} tenant=${t.id} />
      <${Usage} path=${`${path}/usage`} />
      <${DeleteTenant} t=${t} path=${path} />`}
  </main>`;
}

// DeleteTenant deletes the tenant; the API refuses one that still has machines,
// users, schedules, backups or webhooks, and its detail says so.
function DeleteTenant({ t, path }) {
  const [error, run] = useRun();
  const del = async () => { if (await run(() => call('DELETE', path))) { forget(tenantsPath); go('/admin/tenants'); } };
  return html`<${Section} id="delete-part" title="Delete">
    <${ProblemView} error=${error} />
    <p>A tenant is deleted once it has no machines, users, schedules, backups or webhooks left.</p>
    <${Confirm} name="delete-tenant" label="Delete this tenant" yes="Yes, delete it" question=${`Delete the tenant ${t.name}?`} onYes=${del} />
  <//>`;
}

// Quotas changes the tenant's limits.
function Quotas({ t, path, onChange }) {
  const [error, run] = useRun();
  const [saved, setSaved] = useState(false);
  const save = async (e) => {
    e.preventDefault();
    setSaved(false);
    const q = numbers(new FormData(e.target), quotaFields.map(([k]) => k));
    if (await run(async () => onChange(await call('PATCH', path, { quota: q })))) setSaved(true);
  };
  return html`<${Section} id="quota-part" title="Quotas">
    <${ProblemView} error=${error} />
    <form key=${t.updated_at} onSubmit=${save} aria-label="Quotas">
      <${QuotaInputs} q=${t.quota} error=${error} />
      <button type="submit">Save quotas</button> ${saved && html`<span role="status" data-saved>Saved.</span>`}
    </form>
  <//>`;
}

// Suspend suspends the tenant (its reason, and whether its machines stop, suspend or
// carry on), or unsuspends it (starting the machines it stopped, if asked).
function Suspend({ t, path, onChange }) {
  const [error, run] = useRun();
  const act = (what, body) => run(async () => onChange(await call('POST', `${path}/${what}`, body)));
  if (t.suspension) {
    const submit = (e) => { e.preventDefault(); act('unsuspend', { start: new FormData(e.target).get('start') === 'on' }); };
    return html`<${Section} id="suspend-part" title="Suspension">
      <${ProblemView} error=${error} />
      <p>Suspended since ${when(t.suspension.since)}: <strong>${t.suspension.reason}</strong>.</p>
      <form onSubmit=${submit} aria-label="Unsuspend" class="inline-form">
        <label class="check"><input type="checkbox" name="start" /> Start the machines the suspension stopped</label>
        <button type="submit">Unsuspend</button>
      </form>
    <//>`;
  }
  const submit = (e) => { e.preventDefault(); const f = new FormData(e.target); act('suspend', { reason: f.get('reason'), action: f.get('action') }); };
  return html`<${Section} id="suspend-part" title="Suspension">
    <${ProblemView} error=${error} />
    <p>The tenant is active. Suspended, its users can sign in and read, but change nothing.</p>
    <form onSubmit=${submit} aria-label="Suspend" class="inline-form">
      <${Field} name="reason" label="Reason" error=${error} required maxlength="500" />
      <label class="field"><span>Its machines</span><select name="action">
        <option value="stop">stop</option><option value="suspend">suspend (keep memory)</option><option value="none">keep running</option>
      </select></label>
      <button type="submit" class="danger">Suspend</button>
    </form>
  <//>`;
}

// Users lists the tenant's users, adds one and deletes one.
function Users({ tenant }) {
  const { page, error, reload, pager } = usePaged(`/api/resources/users?limit=50&tenant_id=${encodeURIComponent(tenant)}`);
  const [problem, run] = useRun();
  const add = async (e) => {
    e.preventDefault();
    const form = e.target;
    const f = new FormData(form);
    const body = { email: f.get('email'), name: f.get('name'), password: f.get('password'), role: 'user', tenant_id: tenant };
    if (await run(() => call('POST', '/api/resources/users', body))) { form.reset(); reload(); }
  };
  const del = (u) => run(() => call('DELETE', `/api/resources/users/${encodeURIComponent(u.id)}`)).then(reload);
  const able = (u) => run(() => call('PATCH', `/api/resources/users/${encodeURIComponent(u.id)}`, { disabled: !u.disabled })).then(reload);
  return html`<${Section} id="users-part" title="Users">
    <${ProblemView} error=${error || problem} />
    ${page && (page.items.length === 0 ? html`<p>No users yet.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Second factor</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((u) => html`<tr key=${u.id} data-user=${u.email}><td>${u.email}</td><td>${u.name}</td>
        <td>${u.totp_enabled ? 'on' : 'off'}</td><td data-user-state>${u.disabled ? 'disabled' : 'enabled'}</td>
        <td class="row-actions">${u.disabled ? html`<button type="button" data-enable=${u.email} onClick=${() => able(u)}>Enable</button>`
          : html`<${Confirm} name="disable-user" label="Disable" yes="Yes, disable" question=${`Disable ${u.email}? Their logins end.`} onYes=${() => able(u)} />`}
          <${Confirm} name="delete-user" label="Delete" yes="Yes, delete" question=${`Delete ${u.email}?`} onYes=${() => del(u)} /></td></tr>`)}</tbody>
    </table></div>`)}
    ${pager}
    <form onSubmit=${add} aria-label="New user">
      <div class="grid">
        <${Field} name="email" label="E-mail" error=${problem} type="email" required autocomplete="off" />
        <${Field} name="name" label="Name" error=${problem} required />
        <${Field} name="password" label="Password" error=${problem} type="password" required autocomplete="new-password" />
      </div>
      <button type="submit">Add user</button>
    </form>
  <//>`;
}
