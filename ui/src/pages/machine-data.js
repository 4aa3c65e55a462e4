// A machine's backups and snapshots: the lists, taking one, and going back to one
// (with a confirmation, since it replaces the machine's disks).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, Section, bytes, when } from '../format.js';
import { Confirm } from '../confirm.js';

// usePage reads a list route again whenever a task of the machine ends.
function usePage(path, ended) {
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    call('GET', path).then((p) => { if (live) { setPage(p); setError(null); } }, (e) => live && setError(e));
    return () => { live = false; };
  }, [path, ended]);
  return [page, error];
}

// Backups lists the machine's backups, takes one now, restores one and deletes one
// (DELETE /api/resources/backups/{id}: from the hypervisor too, at once, no task).
export function Backups({ at, act, ended }) {
  const [gone, setGone] = useState(0);
  const [page, loadError] = usePage(at('/backups?limit=100'), `${ended}/${gone}`);
  const [error, setError] = useState(null);
  const [startAfter, setStartAfter] = useState(true);
  const run = async (fn) => { setError(null); try { await fn(); return true; } catch (e) { setError(e); return false; } };
  const take = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { mode: f.get('mode') };
    if (f.get('note')) body.note = f.get('note');
    if (await run(() => act('POST', '/backups', body))) e.target.reset();
  };
  return html`<${Section} id="backups-part" title="Backups">
    <${ProblemView} error=${error || loadError} />
    <form class="inline-form" onSubmit=${take} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${Field} name="note" label="Note (optional)" error=${error} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${startAfter} onChange=${(e) => setStartAfter(e.target.checked)} /> Start the machine after a restore</label>
    ${page && (page.items.length === 0 ? html`<p>No backups yet.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((b) => html`<tr key=${b.id} data-backup=${b.id}>
        <td>${when(b.created_at)}</td><td>${bytes(b.size_bytes)}</td><td>${b.mode}</td><td>${b.origin}</td><td>${b.note || ''}</td>
        <td><${Confirm} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${() => run(() => act('POST', `/backups/${encodeURIComponent(b.id)}/restore`, { start_after: startAfter }))} />
          <${Confirm} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?"
          onYes=${() => run(() => call('DELETE', `/api/resources/backups/${encodeURIComponent(b.id)}`)).then((ok) => ok && setGone((n) => n + 1))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`;
}

// Snapshots lists the machine's snapshots, takes one, rolls back to one and deletes one.
export function Snapshots({ m, at, act, ended }) {
  const [page, loadError] = usePage(at('/snapshots?limit=200'), ended);
  const [error, setError] = useState(null);
  const run = async (fn) => { setError(null); try { await fn(); return true; } catch (e) { setError(e); return false; } };
  const take = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: f.get('name') };
    if (f.get('description')) body.description = f.get('description');
    if (f.get('include_memory')) body.include_memory = true;
    if (await run(() => act('POST', '/snapshots', body))) e.target.reset();
  };
  const one = (s) => `/snapshots/${encodeURIComponent(s.name)}`;
  return html`<${Section} id="snapshots-part" title="Snapshots">
    <${ProblemView} error=${error || loadError} />
    <form class="inline-form" onSubmit=${take} aria-label="Take a snapshot">
      <${Field} name="name" label="Name" error=${error} required />
      <${Field} name="description" label="Description (optional)" error=${error} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${m.status !== 'running'} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${page && (page.items.length === 0 ? html`<p>No snapshots.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((s) => html`<tr key=${s.name} data-snapshot=${s.name}>
        <td>${s.name}</td><td>${when(s.created_at)}</td><td>${s.includes_memory ? 'yes' : 'no'}</td><td>${s.description || ''}</td>
        <td class="row-actions">
          <${Confirm} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${s.name}? Changes since it are lost.`}
            onYes=${() => run(() => act('POST', `${one(s)}/rollback`))} />
          <${Confirm} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${s.name}?`}
            onYes=${() => run(() => act('DELETE', one(s)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`;
}

// Addresses lists the machine's addresses from the IP pools with their reverse DNS
// names: a name set or cleared in place, one more address of a version (within the
// plan's counts), and a non-primary one given back (with a confirmation). Each change
// answers the machine, which replaces the page's copy; an operator acts through the
// operators' routes (base), which also serve a machine of no plan.
export function Addresses({ m, base, onMachine }) {
  const [error, setError] = useState(null);
  const [editing, setEditing] = useState('');
  const one = (a) => `${base}/addresses/${encodeURIComponent(a.address)}`;
  const run = async (fn) => {
    setError(null);
    try { const x = await fn(); if (x && x.id) onMachine(x); return true; } catch (e) { setError(e); return false; }
  };
  const setPTR = async (e, a) => {
    e.preventDefault();
    const ptr = new FormData(e.target).get('ptr').trim();
    if (await run(() => call('PUT', `${one(a)}/ptr`, { ptr }))) setEditing('');
  };
  const add = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { version: Number(f.get('version')) };
    if (f.get('address')) body.address = f.get('address').trim();
    if (await run(() => call('POST', `${base}/addresses`, body))) e.target.reset();
  };
  const list = m.addresses || [];
  // The first address is the primary, which goes only with the machine.
  const primary = list[0];
  return html`<${Section} id="addresses-part" title="Addresses">
    <${ProblemView} error=${error} />
    ${list.length === 0 ? html`<p>No addresses from the IP pools.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${list.map((a) => html`<tr key=${a.address} data-address=${a.address}>
        <td>${a.address}/${a.prefix}${a === primary ? ' (primary)' : ''}</td><td>${a.gateway || ''}</td>
        <td>${editing === a.address
          ? html`<form class="inline-form" onSubmit=${(e) => setPTR(e, a)} aria-label=${`Reverse DNS name of ${a.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${a.ptr || ''} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${() => setEditing('')}>Cancel</button></form>`
          : html`<span data-ptr>${a.ptr || 'none'}</span>`}</td>
        <td class="row-actions">
          ${editing !== a.address && html`<button type="button" data-edit-ptr onClick=${() => setEditing(a.address)}>Edit reverse DNS</button>`}
          ${a !== primary && html`<${Confirm} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${a.address} back to its pool? The machine stops using it.`}
            onYes=${() => run(() => call('DELETE', one(a)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${add} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`;
}
