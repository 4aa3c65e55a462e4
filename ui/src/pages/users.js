// The operators' accounts page (/admin/users): every user, operators and tenant users
// alike, filtered and paged; a new operator or tenant user; one edited in place (name,
// role, tenant, disabled, a new password, external id), its second factor turned off,
// a login link made for a tenant user, and one deleted. The tenant's page keeps its
// own short list of that tenant's users; this page is where an operator finds an
// account by e-mail without knowing its tenant, and where operators are made. A chunk
// of its own.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { tenantsPath, useList } from '../choices.js';
import { readAll, usePaged, useFocusFirst, useRun } from '../paging.js';

const base = '/api/resources/users';
const userPath = (u) => `${base}/${encodeURIComponent(u.id)}`;

// searchCap is how many users a search by e-mail, name or role reads at most: the API
// filters by tenant and external id only, so the page matches the rest itself.
const searchCap = 10000;

// matches tells whether u passes the page's own filters (a part of the e-mail or
// the name, case aside; the role exactly).
const matches = (u, f) => (!f.email || u.email.toLowerCase().includes(f.email.toLowerCase()))
  && (!f.name || u.name.toLowerCase().includes(f.name.toLowerCase())) && (!f.role || u.role === f.role);

// apiQuery is the list's query for the filters the API takes.
function apiQuery(f, limit) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (f.tenant_id) q.set('tenant_id', f.tenant_id);
  if (f.external_id) q.set('external_id', f.external_id);
  return `${base}?${q}`;
}

// useSearch reads every user the API's filters let through (500 a page, up to
// searchCap) while a filter of the page's own is set, and answers those that match,
// with how many were read; null otherwise.
function useSearch(f, n) {
  const [found, setFound] = useState(null);
  const on = !!(f.email || f.name || f.role);
  useEffect(() => {
    setFound(null);
    if (!on) return undefined;
    let live = true;
    readAll(apiQuery(f, 500), searchCap, () => live)
      .then(({ items, more }) => live && setFound({ items: items.filter((u) => matches(u, f)), read: items.length, more }),
        (e) => live && setFound({ items: [], error: e }));
    return () => { live = false; };
  }, [f, n]);
  return found;
}

const empty = { email: '', name: '', role: '', tenant_id: '', external_id: '' };

export function Users() {
  const [filter, setFilter] = useState(empty);
  const { page, error, reload, pager } = usePaged(apiQuery(filter, 50));
  const [n, setN] = useState(0);
  const found = useSearch(filter, n);
  const tenants = useList(tenantsPath);
  const names = Object.fromEntries((tenants?.items || []).map((t) => [t.id, t.name]));
  const [editing, setEditing] = useState(null);
  const searching = !!(filter.email || filter.name || filter.role);
  const shown = searching ? found?.items : page?.items;
  const again = () => { reload(); setN((x) => x + 1); };
  const apply = (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setFilter(Object.fromEntries(Object.keys(empty).map((k) => [k, String(f.get(k) || '').trim()])));
  };
  return html`<main id="main">
    <h1>Users</h1>
    <${NewUser} tenants=${tenants?.items || []} onAdded=${again} />
    <form class="filters" role="search" aria-label="Filter accounts" onSubmit=${apply}>
      <label class="field"><span>E-mail contains</span><input name="email" /></label>
      <label class="field"><span>Name contains</span><input name="name" /></label>
      <label class="field"><span>Role</span><select name="role"><option value="">any</option><option value="admin">operator (admin)</option><option value="user">tenant user</option></select></label>
      <label class="field"><span>Tenant</span><select name="tenant_id"><option value="">any</option>
        ${(tenants?.items || []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select></label>
      <label class="field"><span>External id</span><input name="external_id" /></label>
      <button type="submit">Filter</button>
    </form>
    <${ProblemView} error=${error || found?.error} />
    ${searching && found && !found.error && html`<p role="status" data-matches>${found.items.length} of ${found.read} accounts match${found.more ? ` (only the first ${found.read} were read)` : ''}.</p>`}
    ${shown && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Accounts</caption>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Tenant</th>
        <th scope="col">Second factor</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
      <tbody>${shown.map((u) => html`<${Row} key=${u.id} u=${u} tenant=${names[u.tenant_id] || u.tenant_id || ''}
        editing=${editing === u.id} onEdit=${() => setEditing(editing === u.id ? null : u.id)} onChanged=${() => { setEditing(null); again(); }}
        tenants=${tenants?.items || []} />`)}</tbody>
    </table></div>
    ${shown.length === 0 && html`<p>No account${searching || filter.tenant_id || filter.external_id ? ' matches' : ' yet'}.</p>`}
    ${!searching && pager}`}
  </main>`;
}

// Row is one account with its actions; its edit form and its login link open under it.
function Row({ u, tenant, editing, onEdit, onChanged, tenants }) {
  const [problem, run] = useRun();
  const [link, setLink] = useState(null);
  const act = async (fn) => { if (await run(fn)) onChanged(); };
  const makeLink = async () => {
    setLink(null);
    await run(async () => setLink(await call('POST', `${userPath(u)}/login-links`)));
  };
  const extra = editing || problem || link;
  return html`<tr data-account=${u.email}><td>${u.email}</td><td>${u.name}</td>
      <td data-role>${u.role === 'admin' ? 'operator' : 'tenant user'}</td><td>${tenant}</td>
      <td data-totp>${u.totp_enabled ? 'on' : 'off'}</td><td data-account-state>${u.disabled ? 'disabled' : 'enabled'}</td>
      <td class="row-actions">
        <button type="button" data-edit aria-expanded=${editing ? 'true' : 'false'} onClick=${onEdit}>Edit</button>
        ${u.totp_enabled && html`<${Confirm} name="totp-off" label="Turn second factor off" yes="Yes, turn it off"
          question=${`Turn ${u.email}'s second factor off? Every login of theirs ends.`} onYes=${() => act(() => call('DELETE', `${userPath(u)}/totp`))} />`}
        ${u.role === 'user' && html`<button type="button" data-login-link onClick=${makeLink}>Login link</button>`}
        <${Confirm} name="delete-account" label="Delete" yes="Yes, delete" question=${`Delete ${u.email}?`} onYes=${() => act(() => call('DELETE', userPath(u)))} />
      </td></tr>
    ${extra && html`<tr class="edit-row" data-account-more=${u.email}><td colspan="7">
      <${ProblemView} error=${!editing && problem} />
      ${link && html`<${LinkView} link=${link} onClose=${() => setLink(null)} />`}
      ${editing && html`<${EditUser} u=${u} tenants=${tenants} onSaved=${onChanged} onCancel=${onEdit} />`}
    </td></tr>`}`;
}

// LinkView shows a login link: its URL (made from this page's origin when the server
// has no public URL), when it expires, and a button that copies it.
function LinkView({ link, onClose }) {
  const url = link.url || `${location.origin}/login-link?token=${encodeURIComponent(link.token)}`;
  const [copied, setCopied] = useState('');
  const input = useRef(null);
  useEffect(() => { input.current?.focus(); input.current?.select(); }, [url]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied('Copied.');
    } catch {
      input.current?.select();
      setCopied('Select the link and copy it: the browser refused the clipboard.');
    }
  };
  return html`<div data-link>
    <label class="field"><span>Login link (works once, until ${when(link.expires_at)})</span>
      <input ref=${input} readonly value=${url} data-link-url spellcheck="false" /></label>
    ${!link.url && html`<p class="muted">The server has no public URL, so the link is made from this page's address.</p>`}
    <button type="button" onClick=${copy}>Copy</button> <button type="button" onClick=${onClose}>Close</button>
    <span role="status">${copied}</span>
  </div>`;
}

// EditUser changes an account in place: only the fields changed are sent (a blank
// password keeps it; a blank external id removes it); the API's field errors show
// next to their fields.
function EditUser({ u, tenants, onSaved, onCancel }) {
  const [error, run] = useRun();
  const [role, setRole] = useState(u.role);
  const first = useFocusFirst();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const patch = {};
    const name = String(f.get('name')).trim();
    if (name !== u.name) patch.name = name;
    if (role !== u.role) patch.role = role;
    const tenant = f.get('tenant_id');
    if (role === 'user' && tenant && (tenant !== u.tenant_id || role !== u.role)) patch.tenant_id = tenant;
    const disabled = f.get('disabled') === 'on';
    if (disabled !== u.disabled) patch.disabled = disabled;
    if (f.get('password')) patch.password = f.get('password');
    const ext = String(f.get('external_id')).trim();
    if (ext !== (u.external_id || '')) patch.external_id = ext || null;
    if (Object.keys(patch).length === 0) { onCancel(); return; }
    if (await run(() => call('PATCH', userPath(u), patch))) onSaved();
  };
  const fieldError = (k) => error?.fields?.[k] && html`<span class="field-error">${error.fields[k]}</span>`;
  return html`<form onSubmit=${submit} aria-label=${`Edit ${u.email}`} onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} defaultValue=${u.name} inputRef=${first} required maxlength="100" />
      <label class="field"><span>Role</span><select name="role" value=${role} onChange=${(e) => setRole(e.target.value)}
        aria-invalid=${error?.fields?.role ? 'true' : undefined}>
        <option value="admin">operator (admin)</option><option value="user">tenant user</option></select>${fieldError('role')}</label>
      ${role === 'user' && html`<label class="field"><span>Tenant</span><select name="tenant_id" required
        aria-invalid=${error?.fields?.tenant_id ? 'true' : undefined}>
        ${!u.tenant_id && html`<option value="">choose one</option>`}
        ${tenants.map((t) => html`<option value=${t.id} selected=${t.id === u.tenant_id}>${t.name}</option>`)}</select>${fieldError('tenant_id')}</label>`}
      <${Field} name="password" label="New password (blank: unchanged)" error=${error} type="password" autocomplete="new-password" minlength="8" maxlength="72" />
      <${Field} name="external_id" label="External id (blank: none)" error=${error} defaultValue=${u.external_id || ''} maxlength="128" />
    </div>
    <label class="check"><input type="checkbox" name="disabled" defaultChecked=${u.disabled} /> Disabled (every login ends)</label>
    <p class="muted">A new password, role, tenant or disabling ends every login of the account.</p>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

// NewUser makes an operator (role admin, no tenant) or a tenant user.
function NewUser({ tenants, onAdded }) {
  const [open, setOpen] = useState(false);
  const [role, setRole] = useState('user');
  const [error, run] = useRun();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { email: String(f.get('email')).trim(), name: String(f.get('name')).trim(), password: f.get('password'), role };
    if (role === 'user') body.tenant_id = f.get('tenant_id');
    if (String(f.get('external_id')).trim()) body.external_id = String(f.get('external_id')).trim();
    if (await run(() => call('POST', base, body))) { setOpen(false); onAdded(); }
  };
  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>New account</button>`;
  return html`<form class="card" onSubmit=${submit} aria-label="New account">
    <${ProblemView} error=${error} />
    <fieldset><legend>Role</legend>
      <label class="choice"><input type="radio" name="role" value="user" checked=${role === 'user'} onChange=${() => setRole('user')} /> Tenant user</label>
      <label class="choice"><input type="radio" name="role" value="admin" checked=${role === 'admin'} onChange=${() => setRole('admin')} /> Operator (admin)</label>
    </fieldset>
    <div class="grid">
      <${Field} name="email" label="E-mail" error=${error} type="email" required autocomplete="off" />
      <${Field} name="name" label="Name" error=${error} required maxlength="100" />
      <${Field} name="password" label="Password" error=${error} type="password" required autocomplete="new-password" minlength="8" maxlength="72" />
      ${role === 'user' && html`<label class="field"><span>Tenant</span><select name="tenant_id" required
        aria-invalid=${error?.fields?.tenant_id ? 'true' : undefined}>
        ${tenants.map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select>
        ${error?.fields?.tenant_id && html`<span class="field-error">${error.fields.tenant_id}</span>`}</label>`}
      <${Field} name="external_id" label="External id (optional)" error=${error} maxlength="128" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}
