// The tenant's machines: the list, live from the event stream, and the create form
// (a machine's own page is machine.js).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { listen, tasks } from '../live.js';
import { Field, ProblemView, Status, gb, mb } from '../format.js';
import { TemplatePicker } from './machine-actions.js';
import { plansPath, templatesPath, tenantsPath, useList } from '../choices.js';
import { TaskLine, clientBase as base } from './machine.js';
import { LocationSelect, inLocation, locationName, useOwnLocations } from '../location.js';

export function Machines() {
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const [cursors, setCursors] = useState(['']);
  const cursor = cursors[cursors.length - 1];
  // The location column, only where there is more than one to tell apart.
  const { items: locations, names } = useOwnLocations(false);
  const several = locations.length > 1;

  useEffect(() => {
    let live = true;
    call('GET', `${base}?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      .then((p) => live && setPage(p), (e) => live && setError(e));
    return () => { live = false; };
  }, [cursor]);

  // A machine's events change its row; a new machine joins the first page.
  useEffect(() => listen((type, m) => {
    if (type !== 'machine.updated' && type !== 'machine.deleted') return;
    setPage((p) => {
      if (!p) return p;
      const i = p.items.findIndex((x) => x.id === m.id);
      if (type === 'machine.deleted') return i < 0 ? p : { ...p, items: p.items.filter((x) => x.id !== m.id) };
      if (i >= 0) return { ...p, items: p.items.map((x) => (x.id === m.id ? { ...x, ...m } : x)) };
      return cursors.length === 1 ? { ...p, items: [m, ...p.items] } : p;
    });
  }), [cursors.length]);

  const created = (r) => setPage((p) => (p && !p.items.some((x) => x.id === r.machine.id)
    ? { ...p, items: [{ ...r.machine, task_id: r.task.id }, ...p.items] } : p));

  // The last task of each machine seen on the stream: it stays in its row once it
  // ended (the machine's own task_id is cleared then).
  const byMachine = {};
  for (const t of Object.values(tasks.value)) {
    const seen = byMachine[t.target_id];
    if (!seen || seen.created_at < t.created_at) byMachine[t.target_id] = t;
  }

  return html`<main id="main">
    <h1>Machines</h1>
    <${ProblemView} error=${error} />
    <${CreateMachine} onCreated=${created} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th>${several && html`<th scope="col">Location</th>`}<th scope="col">Task</th></tr></thead>
      <tbody>${page.items.map((m) => html`<tr key=${m.id} data-machine=${m.id}>
        <td><a href=${`/machines/${encodeURIComponent(m.id)}`}>${m.name}</a></td>
        <td><${Status} value=${m.status} /></td>
        <td>${m.cpu_cores} CPU, ${mb(m.memory_mb)}, ${gb(m.disk_gb)}</td>
        ${several && html`<td data-location>${locationName(names, m.location_id)}</td>`}
        <td>${byMachine[m.id] ? html`<${TaskLine} task=${byMachine[m.id]} />`
          : m.task_id ? html`<${TaskLine} task=${{ id: m.task_id, type: 'task', status: 'running' }} />` : ''}</td>
      </tr>`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous</button>
      <button disabled=${!page.next_cursor} onClick=${() => setCursors([...cursors, page.next_cursor])}>Next</button>
    </nav>`}
  </main>`;
}

// CreateMachine asks for a new machine: a name, a plan (its sizes filled from it, its
// templates the only ones offered) and a template. Explicit sizes are for operators
// (admin), and for tenants only while there is no plan to choose. An operator names
// the tenant the machine is for. For sizes of its own a machine is made in the
// location chosen (operators from theirs, tenant users from the client area's list,
// offered to them only when there is more than one); a plan's machine is made in the
// plan's, which the form shows. Only the templates of that location are offered.
export function CreateMachine({ onCreated, admin }) {
  const [error, setError] = useState(null);
  const templates = useList(templatesPath);
  const plans = useList(plansPath);
  const tenants = useList(admin ? tenantsPath : null);
  const [open, setOpen] = useState(false);
  const [planID, setPlanID] = useState(null);
  const [loc, setLoc] = useState('default');
  const { items: locations, names } = useOwnLocations(!!admin);
  const placed = admin || locations.length > 1;
  const planItems = plans?.items || [];
  const custom = admin || (plans && planItems.length === 0);
  // Until a choice, the first plan (tenants) or custom sizes (operators).
  const chosen = planID ?? (custom ? '' : planItems[0]?.id || '');
  const plan = planItems.find((p) => p.id === chosen);
  const allowed = plan?.allowed_templates?.length ? new Set(plan.allowed_templates) : null;
  const where = plan ? plan.location_id || 'default' : loc;
  const offered = templates && { ...templates, items: templates.items.filter((t) => (!allowed || allowed.has(t.id)) && inLocation(where)(t)) };
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const spec = { name: f.get('name'), template_id: f.get('template_id') };
    if (plan) spec.plan_id = plan.id;
    else for (const k of ['cpu_cores', 'memory_mb', 'disk_gb']) if (f.get(k)) spec[k] = Number(f.get(k));
    if (!plan && loc !== 'default') spec.location_id = loc;
    setError(null);
    try {
      onCreated(await call('POST', admin ? `${base}?tenant_id=${encodeURIComponent(f.get('tenant_id'))}` : base, spec));
      e.target.reset();
      setOpen(false);
    } catch (err) {
      setError(err);
    }
  };
  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>New machine</button>`;
  const planMsg = error?.fields?.plan_id;
  return html`<form class="card" onSubmit=${submit} aria-label="New machine">
    <${ProblemView} error=${error || plans?.error || tenants?.error} />
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} required />
      ${admin && html`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(tenants?.items || []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select></label>`}
      ${planItems.length > 0 && html`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${chosen} onChange=${(e) => setPlanID(e.target.value)} aria-invalid=${planMsg ? 'true' : undefined} aria-describedby=${planMsg ? 'plan_id-error' : undefined}>
          ${custom && html`<option value="">custom sizes</option>`}
          ${planItems.map((p) => html`<option value=${p.id}>${p.name}: ${p.cpu_cores} CPU, ${mb(p.memory_mb)}, ${gb(p.disk_gb)}${placed && p.location_id && p.location_id !== 'default' ? `, in ${locationName(names, p.location_id)}` : ''}</option>`)}
        </select>${planMsg && html`<span class="field-error" id="plan_id-error">${planMsg}</span>`}</label>`}
      ${placed && (plan ? html`<p class="muted" data-plan-location>Made in ${locationName(names, plan.location_id)}, the plan's location</p>`
        : html`<${LocationSelect} items=${locations} error=${error} value=${loc} onChange=${(e) => setLoc(e.target.value)} />`)}
      <${TemplatePicker} key=${`${chosen}@${where}`} templates=${offered} error=${error} />
      ${plan ? html`<p class="muted" data-plan-sizes>${plan.cpu_cores} CPU, ${mb(plan.memory_mb)}, ${gb(plan.disk_gb)} from the plan</p>`
        : custom && html`
          <${Field} name="cpu_cores" label="CPU cores" error=${error} type="number" min="1" />
          <${Field} name="memory_mb" label="Memory (MB)" error=${error} type="number" min="1" />
          <${Field} name="disk_gb" label="Disk (GB)" error=${error} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}
