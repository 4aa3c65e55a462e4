// The operator's IP pools: the list (by location or all), a new pool, one changed in
// place under its row (the range never changes: addresses were handed out of it) and
// one deleted (a pool with addresses held or cooling down is refused, the API's
// detail saying how many). A chunk of its own.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView } from '../format.js';
import { Confirm } from '../confirm.js';
import { useList } from '../choices.js';
import { usePaged, useFocusFirst, useRun } from '../paging.js';
import { LocationSelect, locationName, useLocations } from '../location.js';

const base = '/api/resources/ip-pools';
const nodesPath = '/api/virt/nodes?limit=500';
const poolPath = (p) => `${base}/${encodeURIComponent(p.id)}`;

// resolvers reads the DNS field: addresses separated by commas or spaces.
const resolvers = (v) => String(v || '').split(/[\s,]+/).filter(Boolean);

// NodeInput is the node field: free text (a node's name in the pool's location, or
// its id), with the nodes the server knows offered by the page's datalist.
const NodeInput = ({ error, defaultValue }) => html`<${Field} name="node" label="Node (blank: any node)" error=${error}
  list="pool-nodes" autocomplete="off" defaultValue=${defaultValue} />`;

// NewPool is the form of a new pool: every field the API takes.
function NewPool({ locations, onAdded }) {
  const [open, setOpen] = useState(false);
  const [error, run] = useRun();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: String(f.get('name')).trim(), cidr: String(f.get('cidr')).trim(), gateway: String(f.get('gateway')).trim() };
    const node = String(f.get('node')).trim();
    if (node) body.node = node;
    const dns = resolvers(f.get('dns'));
    if (dns.length) body.dns = dns;
    if (f.get('location_id')) body.location_id = f.get('location_id');
    if (await run(() => call('POST', base, body))) { setOpen(false); onAdded(); }
  };
  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>New pool</button>`;
  return html`<form class="card" onSubmit=${submit} aria-label="New pool">
    <h2>New pool</h2>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} required maxlength="100" />
      <${Field} name="cidr" label="Range (CIDR: IPv4 /8 to /30, IPv6 /16 to /64)" error=${error} required placeholder="192.0.2.0/24" />
      <${Field} name="gateway" label="Gateway" error=${error} required placeholder="192.0.2.1" />
      <${NodeInput} error=${error} />
      <${Field} name="dns" label="DNS resolvers (blank: none)" error=${error} placeholder="192.0.2.53, 192.0.2.54" />
      <${LocationSelect} items=${locations} error=${error} defaultValue="default" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}

// EditPool changes a pool in place: only what changed is sent; a blank node or DNS
// clears it (null), and the default location is sent as null, as the API takes it.
function EditPool({ pool, locations, onSaved, onCancel }) {
  const [error, run] = useRun();
  const first = useFocusFirst();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const patch = {};
    for (const k of ['name', 'gateway']) {
      const v = String(f.get(k)).trim();
      if (v !== pool[k]) patch[k] = v;
    }
    const node = String(f.get('node')).trim();
    if (node !== (pool.node || '')) patch.node = node || null;
    const dns = resolvers(f.get('dns'));
    if (dns.join(' ') !== (pool.dns || []).join(' ')) patch.dns = dns.length ? dns : null;
    const loc = f.get('location_id') || 'default';
    if (loc !== (pool.location_id || 'default')) patch.location_id = loc === 'default' ? null : loc;
    if (Object.keys(patch).length === 0) { onCancel(); return; }
    if (await run(() => call('PATCH', poolPath(pool), patch))) onSaved();
  };
  return html`<form onSubmit=${submit} aria-label=${`Edit pool ${pool.name}`} onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} required maxlength="100" defaultValue=${pool.name} inputRef=${first} />
      <${Field} name="gateway" label="Gateway" error=${error} required defaultValue=${pool.gateway} />
      <${NodeInput} error=${error} defaultValue=${pool.node || ''} />
      <${Field} name="dns" label="DNS resolvers (blank: none)" error=${error} defaultValue=${(pool.dns || []).join(', ')} />
      <${LocationSelect} items=${locations} error=${error} defaultValue=${pool.location_id || 'default'} />
    </div>
    <p class="muted">The range (${pool.cidr}) never changes. A pool with addresses held stays in its location.</p>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

// Row is one pool with its actions; its edit form and a refused delete open under it.
function Row({ pool, names, locations, editing, onEdit, onChanged }) {
  const [problem, run] = useRun();
  const del = async () => { if (await run(() => call('DELETE', poolPath(pool)))) onChanged(); };
  const extra = editing || problem;
  return html`<tr data-pool=${pool.name}><td>${pool.name}</td>
      <td data-cidr>${pool.cidr} <span class="muted">IPv${pool.version}</span></td><td data-gateway>${pool.gateway}</td>
      <td data-node>${pool.node || 'any'}</td><td data-dns>${(pool.dns || []).join(', ') || 'none'}</td>
      <td data-location>${locationName(names, pool.location_id)}</td>
      <td data-allocated>${pool.allocated} ${pool.version === 6 ? (pool.allocated === 1 ? 'prefix' : 'prefixes') : (pool.allocated === 1 ? 'address' : 'addresses')}</td>
      <td class="row-actions">
        <button type="button" data-edit=${pool.name} aria-expanded=${editing ? 'true' : 'false'} onClick=${onEdit}>Edit</button>
        <${Confirm} name="delete-pool" label="Delete" yes="Yes, delete" question=${`Delete pool ${pool.name}?`} onYes=${del} />
      </td></tr>
    ${extra && html`<tr class="edit-row" data-pool-more=${pool.name}><td colspan="8">
      <${ProblemView} error=${!editing && problem} />
      ${editing && html`<${EditPool} pool=${pool} locations=${locations} onSaved=${onChanged} onCancel=${onEdit} />`}
    </td></tr>`}`;
}

export function IPPools() {
  const [location, setLocation] = useState('');
  const { page, error, reload, pager } = usePaged(`${base}?limit=50${location ? `&location=${encodeURIComponent(location)}` : ''}`);
  const { list, items, names } = useLocations();
  const nodes = useList(nodesPath);
  const [editing, setEditing] = useState(null);
  const changed = () => { setEditing(null); reload(); };
  return html`<main id="main">
    <h1>IP pools</h1>
    <datalist id="pool-nodes">${(nodes?.items || []).map((n) => html`<option value=${n.id}>${n.name}${n.location_id && n.location_id !== 'default' ? ` (${locationName(names, n.location_id)})` : ''}</option>`)}</datalist>
    <${NewPool} locations=${items} onAdded=${reload} />
    <form class="filters one" role="search" aria-label="Filter pools" onSubmit=${(e) => e.preventDefault()}>
      <${LocationSelect} name="location" label="Location" items=${items} none="every location" value=${location} onChange=${(e) => setLocation(e.target.value)} />
    </form>
    <${ProblemView} error=${error || list?.error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table data-pools>
      <caption class="sr-only">IP pools</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Range</th><th scope="col">Gateway</th><th scope="col">Node</th>
        <th scope="col">DNS</th><th scope="col">Location</th><th scope="col">Allocated</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((p) => html`<${Row} key=${p.id} pool=${p} names=${names} locations=${items}
        editing=${editing === p.id} onEdit=${() => setEditing(editing === p.id ? null : p.id)} onChanged=${changed} />`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No pools${location ? ' in this location' : ' yet'}.</p>`}
    ${pager}`}
  </main>`;
}
