// The operator's plans: the list, a new plan, a plan changed in place or deleted (a
// plan machines still use is refused, the API's detail saying how many), and how many
// more machines of a plan fit on the nodes now. A chunk of its own.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, gb, mb } from '../format.js';
import { Confirm } from '../confirm.js';
import { forget, plansPath, templatesPath, useList } from '../choices.js';
import { usePaged, useRun } from '../paging.js';
import { LocationSelect, inLocation, locationName, useLocations } from '../location.js';

const base = '/api/resources/plans';
const sizes = [['cpu_cores', 'CPU cores', 1], ['memory_mb', 'Memory (MB)', 128], ['disk_gb', 'Disk (GB)', 1], ['ipv4', 'IPv4 addresses', 0]];
// nullable are the limits a plan may leave unset (no bound); blank clears one.
const nullable = [['ipv6_prefix', 'IPv6 prefix length', 1], ['traffic_gb', 'Traffic a month (GB)', 0], ['rate_mbps', 'Rate (Mbit/s)', 0],
  ['backups', 'Backups', 0], ['snapshots', 'Snapshots', 0]];
const opt = (v, unit = '') => (v == null ? 'no bound' : `${v}${unit}`);

// spec reads the plan form: on create, blanks are left out; on a change, a blank
// nullable limit is null (cleared) and only what differs from the plan is sent.
function spec(form, templates, plan) {
  const f = new FormData(form);
  const out = { name: String(f.get('name')).trim() };
  for (const [k] of sizes) if (f.get(k) !== '') out[k] = Number(f.get(k));
  for (const [k] of nullable) {
    if (f.get(k) !== '') out[k] = Number(f.get(k));
    else if (plan) out[k] = null;
  }
  const allowed = f.getAll('allowed_templates').map(String);
  if (allowed.length || plan) out.allowed_templates = allowed;
  // The location: on create, the default one is left out; on a change it is sent as
  // null, which the API takes as the default one.
  const loc = String(f.get('location_id') || 'default');
  if (plan) out.location_id = loc === 'default' ? null : loc;
  else if (loc !== 'default') out.location_id = loc;
  if (!plan) return out;
  const changed = {};
  const was = { ...plan, location_id: plan.location_id && plan.location_id !== 'default' ? plan.location_id : null };
  for (const [k, v] of Object.entries(out)) if (JSON.stringify(v) !== JSON.stringify(was[k] ?? (k === 'allowed_templates' ? [] : null))) changed[k] = v;
  return changed;
}

// PlanForm is the form of a new plan, or of a plan's change (plan given).
function PlanForm({ plan, onDone, onCancel }) {
  const templates = useList(templatesPath);
  const { items: locations } = useLocations();
  const [loc, setLoc] = useState(plan?.location_id || 'default');
  const [error, run] = useRun();
  const submit = async (e) => {
    e.preventDefault();
    const body = spec(e.target, templates, plan);
    const ok = await run(() => (plan ? call('PATCH', `${base}/${encodeURIComponent(plan.id)}`, body) : call('POST', base, body)));
    if (ok) onDone();
  };
  const allowed = new Set(plan?.allowed_templates || []);
  const label = plan ? `Change plan ${plan.name}` : 'New plan';
  return html`<form class="card" onSubmit=${submit} aria-label=${label}>
    <h2>${label}</h2>
    <${ProblemView} error=${error || templates?.error} />
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} required maxlength="100" defaultValue=${plan?.name} />
      ${sizes.map(([k, l, min]) => html`<${Field} name=${k} label=${l} error=${error} type="number" min=${min} required=${k !== 'ipv4'} defaultValue=${plan?.[k]} />`)}
      ${nullable.map(([k, l, min]) => html`<${Field} name=${k} label=${`${l} (blank: no bound)`} error=${error} type="number" min=${min} defaultValue=${plan?.[k] ?? undefined} />`)}
      <${LocationSelect} items=${locations} error=${error} value=${loc} onChange=${(e) => setLoc(e.target.value)} />
    </div>
    <fieldset aria-describedby=${error?.fields?.allowed_templates ? 'allowed_templates-error' : undefined}>
      <legend>Templates allowed (none ticked: every template of its location)</legend>
      ${(templates?.items || []).filter(inLocation(loc)).map((t) => html`<label class="check"><input type="checkbox" name="allowed_templates" value=${t.id} defaultChecked=${allowed.has(t.id)} /> ${t.name}</label>`)}
      ${error?.fields?.allowed_templates && html`<span class="field-error" id="allowed_templates-error">${error.fields.allowed_templates}</span>`}
    </fieldset>
    <button type="submit" class="primary">${plan ? 'Save' : 'Create'}</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

// Capacity shows how many more machines of the plan fit, node by node.
function Capacity({ plan }) {
  const [c, setC] = useState(null);
  const [error, run] = useRun();
  const load = () => run(async () => setC(await call('GET', `${base}/${encodeURIComponent(plan.id)}/capacity`)));
  if (!c) return html`<${ProblemView} error=${error} /><button type="button" data-capacity=${plan.name} onClick=${load}>Capacity</button>`;
  return html`<div data-capacity-of=${plan.name}>
    <p><strong data-fits>${c.total}</strong> more fit (overcommit: CPU ${c.overcommit.cpu}×, memory ${c.overcommit.memory}×, disk ${c.overcommit.disk}×).</p>
    <ul>${c.nodes.map((n) => html`<li key=${n.node}>${n.node}${n.online ? '' : ' (offline)'}: ${n.fits} (free ${n.free_cpu_cores} CPU, ${mb(n.free_memory_mb)}, ${gb(n.free_disk_gb)})</li>`)}</ul>
    <button type="button" onClick=${() => setC(null)}>Hide</button>
  </div>`;
}

export function Plans() {
  const { page, error, reload, pager } = usePaged(`${base}?limit=50`);
  const [editing, setEditing] = useState(null);
  const [problem, run] = useRun();
  const { names } = useLocations();
  const done = () => { setEditing(null); forget(plansPath); reload(); };
  const del = (p) => run(() => call('DELETE', `${base}/${encodeURIComponent(p.id)}`)).then((ok) => ok && done());
  return html`<main id="main">
    <h1>Plans</h1>
    ${editing === 'new' ? html`<${PlanForm} onDone=${done} onCancel=${() => setEditing(null)} />`
      : editing ? html`<${PlanForm} key=${editing.id} plan=${editing} onDone=${done} onCancel=${() => setEditing(null)} />`
        : html`<button class="primary" onClick=${() => setEditing('new')}>New plan</button>`}
    <${ProblemView} error=${error || problem} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Plans</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Addresses</th><th scope="col">Traffic, rate</th>
        <th scope="col">Backups, snapshots</th><th scope="col">Templates</th><th scope="col">Location</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((p) => html`<tr key=${p.id} data-plan=${p.name}><td>${p.name}</td>
        <td data-size>${p.cpu_cores} CPU, ${mb(p.memory_mb)}, ${gb(p.disk_gb)}</td>
        <td>${p.ipv4} IPv4${p.ipv6_prefix != null ? `, an IPv6 /${p.ipv6_prefix}` : ''}</td>
        <td>${opt(p.traffic_gb, ' GB')}, ${opt(p.rate_mbps, ' Mbit/s')}</td><td>${opt(p.backups)}, ${opt(p.snapshots)}</td>
        <td>${p.allowed_templates?.length ? p.allowed_templates.join(', ') : 'every one'}</td>
        <td data-location>${locationName(names, p.location_id)}</td>
        <td class="row-actions"><button type="button" data-edit=${p.name} onClick=${() => setEditing(p)}>Edit</button>
          <${Confirm} name="delete-plan" label="Delete" yes="Yes, delete" question=${`Delete plan ${p.name}?`} onYes=${() => del(p)} />
          <${Capacity} plan=${p} /></td></tr>`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No plans yet.</p>`}
    ${pager}`}
  </main>`;
}
