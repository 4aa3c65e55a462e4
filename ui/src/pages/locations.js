// The operator's locations (hypervisor clusters): the list with each one's health as
// /api/health last found it, a new location (another simulated cluster, or a Proxmox
// VE cluster with its API token), one renamed or given new Proxmox settings in place,
// and one deleted (refused while plans, IP pools, nodes or machines belong to it, the
// API's detail naming them). The default location is the server's own settings: it is
// listed, never changed or deleted. A chunk of its own.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, Status } from '../format.js';
import { Confirm } from '../confirm.js';
import { forget } from '../choices.js';
import { usePaged, useFocusFirst, useRun } from '../paging.js';
import { locationsPath } from '../location.js';

const base = '/api/resources/locations';
const locationPath = (l) => `${base}/${encodeURIComponent(l.id)}`;

// useHealth reads /api/health's checks: the default location's hypervisor and each
// other location's. /api/health answers 503 with the same body when a check fails,
// so its body is read whatever the status.
function useHealth(n) {
  const [h, setH] = useState(null);
  useEffect(() => {
    let live = true;
    fetch('/api/health', { headers: { Accept: 'application/json' } }).then((r) => r.json())
      .then((b) => live && setH(b.checks || {}), () => live && setH({}));
    return () => { live = false; };
  }, [n]);
  return h;
}

// health is a location's check: "ok", "unavailable", or "not checked yet" for a
// location added since the last probe.
const health = (checks, l) => (l.default ? checks.hypervisor : checks.locations?.[l.id]) || 'not checked yet';

// ProxmoxFields are a Proxmox cluster's settings: its API's URL, its API token (the
// secret itself, stored sealed, or a file on the server holding it) and its TLS
// certificate's fingerprint. The secret is a password input, never filled in.
function ProxmoxFields({ error, p }) {
  const [mode, setMode] = useState(p?.token_secret_file ? 'file' : 'secret');
  const msg = error?.fields?.proxmox;
  // Keyed: Preact would otherwise keep one input for both, and a secret typed before
  // the switch would stay in the file's field, shown as text.
  const secretField = mode === 'secret'
    ? html`<${Field} key="secret" name="proxmox.token_secret" label="Token secret" error=${error} required type="password" autocomplete="off" />`
    : html`<${Field} key="file" name="proxmox.token_secret_file" label="Token secret file" error=${error} required placeholder="/etc/vmplane/pve.secret" defaultValue=${p?.token_secret_file} />`;
  return html`<fieldset aria-describedby=${msg ? 'proxmox-error' : undefined}>
    <legend>Proxmox VE cluster</legend>
    ${msg && html`<span class="field-error" id="proxmox-error">${msg}</span>`}
    <div class="grid">
      <${Field} name="proxmox.url" label="API URL" error=${error} required type="url" placeholder="https://pve.example.net:8006" defaultValue=${p?.url} />
      <${Field} name="proxmox.token_id" label="Token id" error=${error} required placeholder="vmplane@pve!api" defaultValue=${p?.token_id} />
      <label class="field"><span>Token secret from</span><select name="secret_from" value=${mode} onChange=${(e) => setMode(e.target.value)}>
        <option value="secret">the secret, stored sealed</option><option value="file">a file on the server</option></select></label>
      ${secretField}
      <${Field} name="proxmox.tls_fingerprint" label="TLS fingerprint (blank: the system's CAs)" error=${error} defaultValue=${p?.tls_fingerprint} />
    </div>
    ${mode === 'secret' && error?.fields?.['proxmox.token_secret_file'] && html`<span class="field-error">${error.fields['proxmox.token_secret_file']}</span>`}
  </fieldset>`;
}

// proxmoxSpec reads ProxmoxFields: the secret or its file, whichever was chosen.
function proxmoxSpec(f) {
  const v = (k) => String(f.get(`proxmox.${k}`) ?? '').trim();
  const p = { url: v('url'), token_id: v('token_id') };
  if (f.get('secret_from') === 'file') p.token_secret_file = v('token_secret_file');
  else p.token_secret = String(f.get('proxmox.token_secret') ?? '');
  if (v('tls_fingerprint')) p.tls_fingerprint = v('tls_fingerprint');
  return p;
}

// NewLocation adds a simulated cluster or a Proxmox one.
function NewLocation({ onAdded }) {
  const [open, setOpen] = useState(false);
  const [driver, setDriver] = useState('proxmox');
  const [error, run] = useRun();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: String(f.get('name')).trim(), driver };
    if (driver === 'proxmox') body.proxmox = proxmoxSpec(f);
    if (await run(() => call('POST', base, body))) { setOpen(false); onAdded(); }
  };
  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>New location</button>`;
  const driverMsg = error?.fields?.driver;
  return html`<form class="card" onSubmit=${submit} aria-label="New location">
    <h2>New location</h2>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} required maxlength="100" />
      <label class="field"><span>Driver</span><select name="driver" value=${driver} onChange=${(e) => setDriver(e.target.value)}
        aria-invalid=${driverMsg ? 'true' : undefined} aria-describedby=${driverMsg ? 'driver-error' : undefined}>
        <option value="proxmox">Proxmox VE</option><option value="sim">simulated</option></select>
        ${driverMsg && html`<span class="field-error" id="driver-error">${driverMsg}</span>`}</label>
    </div>
    ${driver === 'proxmox' && html`<${ProxmoxFields} error=${error} />`}
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}

// EditLocation renames a location and, for a Proxmox one, replaces its settings in
// whole when asked (the secret given again: no answer holds it).
function EditLocation({ l, onSaved, onCancel }) {
  const [error, run] = useRun();
  const [settings, setSettings] = useState(false);
  const first = useFocusFirst();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const patch = {};
    const name = String(f.get('name')).trim();
    if (name !== l.name) patch.name = name;
    if (settings) patch.proxmox = proxmoxSpec(f);
    if (Object.keys(patch).length === 0) { onCancel(); return; }
    if (await run(() => call('PATCH', locationPath(l), patch))) onSaved();
  };
  return html`<form onSubmit=${submit} aria-label=${`Edit location ${l.name}`} onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid"><${Field} name="name" label="Name" error=${error} required maxlength="100" defaultValue=${l.name} inputRef=${first} /></div>
    ${l.driver === 'proxmox' && html`<label class="check"><input type="checkbox" checked=${settings} onChange=${(e) => setSettings(e.target.checked)} />
      New Proxmox settings (all of them, the token's secret again)</label>
      ${settings && html`<${ProxmoxFields} error=${error} p=${l.proxmox} />`}`}
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

// Row is one location with its actions; its edit form and a refused delete open
// under it.
function Row({ l, checks, editing, onEdit, onChanged }) {
  const [problem, run] = useRun();
  const del = async () => { if (await run(() => call('DELETE', locationPath(l)))) onChanged(); };
  const p = l.proxmox;
  const extra = editing || problem;
  return html`<tr data-location=${l.name}><td>${l.name}${l.default ? html` <span class="muted">(default)</span>` : ''}</td>
      <td data-driver>${l.driver === 'sim' ? 'simulated' : 'Proxmox VE'}</td>
      <td data-settings>${p ? html`${p.url}<br /><span class="muted">token ${p.token_id}, secret ${p.token_secret_file ? `from ${p.token_secret_file}` : p.token_secret_stored ? 'stored' : 'none'}${p.tls_fingerprint ? ', pinned certificate' : ''}</span>`
        : l.default ? html`<span class="muted">the server's settings</span>` : ''}</td>
      <td data-health>${checks ? html`<${Status} value=${health(checks, l)} />` : ''}</td>
      <td class="row-actions">${l.default ? html`<span class="muted">configured by the server</span>` : html`
        <button type="button" data-edit=${l.name} aria-expanded=${editing ? 'true' : 'false'} onClick=${onEdit}>Edit</button>
        <${Confirm} name="delete-location" label="Delete" yes="Yes, delete" question=${`Delete location ${l.name}?`} onYes=${del} />`}
      </td></tr>
    ${extra && html`<tr class="edit-row" data-location-more=${l.name}><td colspan="5">
      <${ProblemView} error=${!editing && problem} />
      ${editing && html`<${EditLocation} l=${l} onSaved=${onChanged} onCancel=${onEdit} />`}
    </td></tr>`}`;
}

export function Locations() {
  const { page, error, reload, pager } = usePaged(`${base}?limit=50`);
  const [n, setN] = useState(0);
  const checks = useHealth(n);
  const [editing, setEditing] = useState(null);
  const changed = () => { setEditing(null); forget(locationsPath); reload(); setN((x) => x + 1); };
  return html`<main id="main">
    <h1>Locations</h1>
    <${NewLocation} onAdded=${changed} />
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table data-locations>
      <caption class="sr-only">Locations</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Driver</th><th scope="col">Settings</th><th scope="col">Health</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((l) => html`<${Row} key=${l.id} l=${l} checks=${checks}
        editing=${editing === l.id} onEdit=${() => setEditing(editing === l.id ? null : l.id)} onChanged=${changed} />`)}</tbody>
    </table></div>
    <p class="muted">Health is the server's last probe of each cluster (<code>/api/health</code>); a location added since shows once probed.
      <button type="button" class="quiet" onClick=${() => setN((x) => x + 1)}>Read again</button></p>
    ${pager}`}
  </main>`;
}
