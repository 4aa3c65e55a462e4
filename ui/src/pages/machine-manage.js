// A machine's name, boot order and deletion (its tenant's users and operators), and
// what only operators do to it: a migration to another node, a billing suspension
// and a termination, each as the API has it.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, Section, gb, mb, when } from '../format.js';
import { plansPath, useList } from '../choices.js';
import { Confirm } from '../confirm.js';

// useRun runs an action, keeping its problem for the form; it answers whether it
// succeeded.
function useRun() {
  const [error, setError] = useState(null);
  const run = async (fn) => { setError(null); try { await fn(); return true; } catch (e) { setError(e); return false; } };
  return [error, run];
}

// devices are the boot devices the API knows.
const devices = [['disk', 'Disk'], ['cdrom', 'CD-ROM'], ['net', 'Network (PXE)']];

// Manage renames the machine, sets its boot order and deletes it. Each answers a task
// (act shows it); a deletion that succeeds leaves the page for the list (onGone).
export function Manage({ m, act, ended, own, onGone }) {
  const [error, run] = useRun();
  const [deleting, setDeleting] = useState(null);
  const base = `/api/resources/machines/${encodeURIComponent(m.id)}`;
  const rename = async (e) => {
    e.preventDefault();
    const name = String(new FormData(e.target).get('name')).trim();
    if (name !== m.name) await run(() => act('PATCH', base, { name }));
  };
  const boot = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const order = ['boot0', 'boot1', 'boot2'].map((k) => String(f.get(k) || '')).filter(Boolean);
    await run(() => act('PUT', '/boot-order', { order }));
  };
  // The deletion's task ending: gone when it succeeded.
  useEffect(() => {
    if (!deleting) return;
    call('GET', `/api/tasks/${encodeURIComponent(deleting)}`).then((t) => { if (t.status === 'succeeded') onGone(); }, () => {});
  }, [ended, deleting]);
  const del = async () => {
    let t;
    if (await run(async () => { t = await act('DELETE', own ? base : ''); })) setDeleting(t.id);
  };
  const order = m.boot_order || [];
  const fieldError = (k) => error?.fields?.[k] && html`<span class="field-error" id=${`${k}-error`}>${error.fields[k]}</span>`;
  return html`<${Section} id="manage-part" title="Name, boot order and deletion">
    <${ProblemView} error=${error} />
    <form class="inline-form" onSubmit=${rename} aria-label="Rename">
      <${Field} key=${m.name} name="name" label="Name" error=${error} required maxlength="63" defaultValue=${m.name} spellcheck="false" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline-form" onSubmit=${boot} aria-label="Boot order" key=${order.join(',')}>
      ${['First', 'Then', 'Last'].map((label, i) => html`<label class="field"><span>${label}</span>
        <select name=${`boot${i}`} aria-describedby=${error?.fields?.order ? 'order-error' : undefined}>
          <option value="">${i ? 'nothing more' : 'choose a device'}</option>
          ${devices.map(([d, what]) => html`<option value=${d} selected=${order[i] === d}>${what}</option>`)}
        </select></label>`)}
      <button type="submit">Set the boot order</button>
      ${fieldError('order')}
    </form>
    <p class="muted">The boot order applies at the next start.${m.boot_order ? ` Now: ${m.boot_order.join(', ')}.` : ''}</p>
    ${deleting ? html`<p role="status" data-deleting>Deleting the machine…</p>`
      : html`<${Confirm} name="delete-machine" label="Delete this machine" yes="Yes, delete it"
        question=${`Delete ${m.name}, its disks with it? This cannot be undone.`} onYes=${del} />`}
  <//>`;
}

// Disks lists the machine's disks and adds one (POST /api/virt/vms/{id}/disks).
function Disks({ m, virt, act, run, error }) {
  const add = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { size_gb: Number(f.get('size_gb')) };
    if (String(f.get('storage')).trim()) body.storage = String(f.get('storage')).trim();
    if (await run(() => act('POST', `${virt}/disks`, body))) e.target.reset();
  };
  return html`<h3>Disks</h3>
    <ul data-disks>${(m.disks || []).map((d) => html`<li key=${d.id}>${d.id}: ${d.size_gb} GB on ${d.storage}</li>`)}</ul>
    <form class="inline-form" onSubmit=${add} aria-label="Add a disk">
      <${Field} name="size_gb" label="New disk (GB)" error=${error} type="number" min="1" required />
      <${Field} name="storage" label="Storage (blank: the machine's)" error=${error} spellcheck="false" />
      <button type="submit">Add the disk</button>
    </form>`;
}

// Network changes the machine's interfaces (bridge, VLAN, rate, firewall): only the
// fields changed are sent, per interface (PATCH /api/virt/vms/{id}/network).
function Network({ m, virt, act, run }) {
  const save = async (e, i) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const now = { bridge: String(f.get('bridge')).trim(), vlan: Number(f.get('vlan') || 0), rate_mbps: Number(f.get('rate_mbps') || 0), firewall: f.get('firewall') === 'on' };
    const change = Object.fromEntries(Object.entries(now).filter(([k, v]) => v !== i[k]));
    if (Object.keys(change).length) await run(() => act('PATCH', `${virt}/network`, { interfaces: [{ id: i.id, ...change }] }));
  };
  return html`<h3>Network</h3>
    ${(m.interfaces || []).map((i) => html`<form key=${`${i.id}/${i.bridge}/${i.vlan}/${i.rate_mbps}/${i.firewall}`} class="inline-form" data-interface=${i.id}
      onSubmit=${(e) => save(e, i)} aria-label=${`Interface ${i.id}`}>
      <label class="field"><span>${i.id} bridge</span><input name="bridge" defaultValue=${i.bridge} required spellcheck="false" /></label>
      <label class="field"><span>VLAN (0: untagged)</span><input name="vlan" type="number" min="0" max="4094" defaultValue=${i.vlan} /></label>
      <label class="field"><span>Rate (Mbit/s, 0: unlimited)</span><input name="rate_mbps" type="number" min="0" defaultValue=${i.rate_mbps} /></label>
      <label class="check"><input type="checkbox" name="firewall" defaultChecked=${i.firewall} /> Firewall</label>
      <button type="submit">Save ${i.id}</button>
    </form>`)}`;
}

// Config changes the size or the plan of a machine of no tenant through the
// operators' routes (PATCH .../config, POST .../plan): the client area's resize acts
// for a tenant (its quota), which such a machine has not. Each answers a task.
function Config({ m, virt, act, run, error }) {
  const plans = useList(plansPath);
  const [plan, setPlan] = useState('');
  const sizes = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = {};
    for (const k of ['cpu_cores', 'memory_mb']) {
      const v = Number(f.get(k));
      if (f.get(k) && v !== m[k]) body[k] = v;
    }
    if (Object.keys(body).length) await run(() => act('PATCH', `${virt}/config`, body));
  };
  return html`<h3>Size and plan</h3>
    <${ProblemView} error=${plans?.error} />
    ${plans?.items?.length > 0 && html`<div class="inline-form" data-config-plan>
      <label class="field"><span>Plan</span><select name="plan_id" value=${plan} onChange=${(e) => setPlan(e.target.value)}>
        <option value="">choose a plan</option>
        ${plans.items.map((p) => html`<option value=${p.id}>${p.name}: ${p.cpu_cores} CPU, ${mb(p.memory_mb)}, ${gb(p.disk_gb)}${p.id === m.plan_id ? ' (current)' : ''}</option>`)}
      </select></label>
      <button type="button" disabled=${!plan} onClick=${() => run(() => act('POST', `${virt}/plan`, { plan_id: plan }))}>Move to plan</button>
    </div>`}
    <form key=${`${m.cpu_cores}/${m.memory_mb}`} class="inline-form" onSubmit=${sizes} aria-label="Size" data-config>
      <${Field} name="cpu_cores" label="CPU cores" error=${error} type="number" min="1" defaultValue=${m.cpu_cores} />
      <${Field} name="memory_mb" label="Memory (MB)" error=${error} type="number" min="1" defaultValue=${m.memory_mb} />
      <button type="submit">Change the size</button>
    </form>`;
}

// Operate is the operators' part: a migration to another node of the machine's
// location, its disks and network, a billing suspension (its reason and what happens to a running machine)
// and its end, and a termination (the machine with its snapshots and backups deleted
// at its due time) and its taking back. onMachine takes the machine as an answer
// holds it.
export function Operate({ m, act, own, onMachine }) {
  const [error, run] = useRun();
  const [nodes, setNodes] = useState(null);
  const virt = `/api/virt/vms/${encodeURIComponent(m.id)}`;
  useEffect(() => { call('GET', '/api/virt/nodes?limit=500').then((p) => setNodes(p.items), () => setNodes([])); }, []);
  const others = (nodes || []).filter((n) => n.name !== m.node && (n.location_id || n.location || 'default') === (m.location_id || 'default'));
  const migrate = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    await run(() => act('POST', `${virt}/migrate`, { target_node: String(f.get('target_node')), online: f.get('online') === 'on' }));
  };
  const machine = (method, path, body) => run(async () => onMachine(await call(method, `${virt}${path}`, body)));
  const suspend = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    await machine('POST', '/suspend-billing', { reason: String(f.get('reason')).trim(), action: String(f.get('action')) });
  };
  const [restart, setRestart] = useState(false);
  const s = m.billing_suspension;
  return html`<${Section} id="operate-part" title="Operator">
    <${ProblemView} error=${error} />
    <form class="inline-form" onSubmit=${migrate} aria-label="Migrate">
      <label class="field"><span>Migrate to node</span><select name="target_node" required aria-invalid=${error?.fields?.target_node ? 'true' : undefined}>
        ${others.length === 0 && html`<option value="">${nodes ? 'no other node' : 'loading…'}</option>`}
        ${others.map((n) => html`<option value=${n.id || n.name}>${n.name}${n.status !== 'online' ? ` (${n.status})` : ''}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="online" defaultChecked=${m.status === 'running'} /> Online (the machine keeps running)</label>
      <button type="submit" disabled=${others.length === 0}>Migrate</button>
    </form>
    ${own && html`<${Config} m=${m} virt=${virt} act=${act} run=${run} error=${error} />`}
    <${Disks} m=${m} virt=${virt} act=${act} run=${run} error=${error} />
    <${Network} m=${m} virt=${virt} act=${act} run=${run} />
    <h3>Billing</h3>
    ${s ? html`<p data-billing>Suspended since ${when(s.since)}: ${s.reason} (${s.action}). Its tenant's users can read it but change nothing.</p>
        <div class="inline-form"><label class="check"><input type="checkbox" checked=${restart} onChange=${(e) => setRestart(e.target.checked)} /> Start it again</label>
        <button type="button" data-unsuspend onClick=${() => machine('POST', '/unsuspend-billing', { start: restart })}>End the suspension</button></div>`
      : html`<form class="inline-form" onSubmit=${suspend} aria-label="Suspend for billing">
        <${Field} name="reason" label="Reason (its tenant's users see it)" error=${error} required maxlength="500" />
        <label class="field"><span>A running machine is</span><select name="action">
          <option value="stop">stopped</option><option value="suspend">suspended</option><option value="none">left running</option></select></label>
        <button type="submit">Suspend for billing</button></form>`}
    <h3>Termination</h3>
    ${m.terminate_at ? html`<p data-terminate>Marked for deletion with its snapshots and backups at ${when(m.terminate_at)}.</p>
        <button type="button" data-terminate-back onClick=${() => machine('DELETE', '/terminate')}>Take the termination back</button>`
      : html`<${Confirm} name="terminate" label="Terminate" yes="Yes, terminate it"
        question=${`Delete ${m.name} with every snapshot and backup it has, after the grace the server allows?`} onYes=${() => machine('POST', '/terminate')} />`}
  <//>`;
}
