// A machine's changes that rebuild or resize it: ISO media and rescue, reinstall from
// a template, and resize (to a plan, or to sizes of its own).
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { Field, ProblemView, Section, gb, mb } from '../format.js';
import { Confirm } from '../confirm.js';
import { isosPath, plansPath, templatesPath, useList } from '../choices.js';

// useRun runs an action, keeping its problem for the form.
function useRun() {
  const [error, setError] = useState(null);
  const run = async (fn) => { setError(null); try { await fn(); return true; } catch (e) { setError(e); return false; } };
  return [error, run];
}

// Media mounts and ejects an ISO image and turns rescue on and off.
export function Media({ m, act }) {
  const isos = useList(isosPath);
  const [error, run] = useRun();
  const [iso, setISO] = useState('');
  const ready = (isos?.items || []).filter((i) => i.status === 'ready');
  return html`<${Section} id="media-part" title="ISO and rescue">
    <${ProblemView} error=${error || isos?.error} />
    <p>In the CD-ROM drive: <strong data-media>${m.media ? m.media.name : 'nothing'}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${iso} onChange=${(e) => setISO(e.target.value)} aria-describedby=${error?.fields?.iso_id ? 'iso_id-error' : undefined}>
          <option value="">${isos ? (ready.length ? 'choose an image' : 'no image is ready') : 'loading…'}</option>
          ${ready.map((i) => html`<option value=${i.id}>${i.name}</option>`)}
        </select>
        ${error?.fields?.iso_id && html`<span class="field-error" id="iso_id-error">${error.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!iso || m.rescue} onClick=${() => run(() => act('POST', '/media', { iso_id: iso }))}>Mount</button>
      <button type="button" disabled=${!m.media || m.rescue} onClick=${() => run(() => act('DELETE', '/media'))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${m.rescue ? 'on' : 'off'}</strong>.</p>
    ${m.rescue
      ? html`<${Confirm} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${() => run(() => act('POST', '/rescue', { enabled: false }))} />`
      : html`<${Confirm} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${() => run(() => act('POST', '/rescue', { enabled: true }))} />`}
  <//>`;
}

// Reinstall rebuilds the system disk from a template the tenant may use.
export function Reinstall({ m, act }) {
  const templates = useList(templatesPath);
  const [error, run] = useRun();
  const [form, setForm] = useState(null);
  const submit = (e) => { e.preventDefault(); setForm(e.target); };
  const go = async () => {
    const f = new FormData(form);
    const body = { template_id: f.get('template_id') };
    if (f.get('password')) body.password = f.get('password');
    const keys = String(f.get('ssh_keys') || '').split('\n').map((k) => k.trim()).filter(Boolean);
    if (keys.length) body.ssh_keys = keys;
    if (await run(() => act('POST', '/reinstall', body))) form.reset();
    setForm(null);
  };
  return html`<${Section} id="reinstall-part" title="Reinstall">
    <${ProblemView} error=${error || templates?.error} />
    <form onSubmit=${submit} aria-label="Reinstall">
      <div class="grid">
        <${TemplatePicker} templates=${templates} error=${error} value=${m.template_id} />
        <${Field} name="password" label="New root password (optional)" error=${error} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${form
        ? html`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${(b) => b?.focus()} onClick=${go}>Yes, reinstall</button>
            <button type="button" onClick=${() => setForm(null)}>Cancel</button></p>`
        : html`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`;
}

// TemplatePicker chooses among the templates the API lists to the user
// (GET /api/resources/templates).
export function TemplatePicker({ templates, error, value }) {
  const msg = error?.fields?.template_id;
  return html`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${msg ? 'true' : undefined} aria-describedby=${msg ? 'template_id-error' : undefined}>
      ${!templates && html`<option value="">loading…</option>`}
      ${(templates?.items || []).map((t) => html`<option value=${t.id} selected=${t.id === value}>${t.name}${t.disk_gb ? ` (at least ${t.disk_gb} GB)` : ''}</option>`)}
    </select>
    ${msg && html`<span class="field-error" id="template_id-error">${msg}</span>`}
  </label>`;
}

// initial fills an input once, when it is drawn: a value prop would be put back at
// every render (each event of the machine), over what the user is typing. The form is
// keyed by the sizes, so a resize draws it again with the new ones.
const initial = (v) => (el) => {
  if (el && !el.dataset.filled) { el.value = v; el.dataset.filled = '1'; }
};

// Resize moves the machine to a plan, or changes its sizes (the disk only grows).
export function Resize({ m, act }) {
  const plans = useList(plansPath);
  const [error, run] = useRun();
  const [plan, setPlan] = useState('');
  const sizes = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = {};
    for (const k of ['cpu_cores', 'memory_mb', 'disk_gb']) {
      const v = Number(f.get(k));
      if (f.get(k) && v !== m[k]) body[k] = v;
    }
    if (Object.keys(body).length) await run(() => act('PATCH', '/resources', body));
  };
  return html`<${Section} id="resize-part" title="Resize">
    <${ProblemView} error=${error || plans?.error} />
    ${plans?.items?.length > 0 && html`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${plan} onChange=${(e) => setPlan(e.target.value)}>
        <option value="">choose a plan</option>
        ${plans.items.map((p) => html`<option value=${p.id}>${p.name}: ${p.cpu_cores} CPU, ${mb(p.memory_mb)}, ${gb(p.disk_gb)}${p.id === m.plan_id ? ' (current)' : ''}</option>`)}
      </select></label>
      <button type="button" disabled=${!plan} onClick=${() => run(() => act('POST', '/plan', { plan_id: plan }))}>Move to plan</button>
    </div>`}
    <form key=${`${m.cpu_cores}/${m.memory_mb}/${m.disk_gb}`} onSubmit=${sizes} aria-label="Resize">
      <div class="grid">
        <${Field} name="cpu_cores" label="CPU cores" error=${error} type="number" min="1" inputRef=${initial(m.cpu_cores)} />
        <${Field} name="memory_mb" label="Memory (MB)" error=${error} type="number" min="1" inputRef=${initial(m.memory_mb)} />
        <${Field} name="disk_gb" label="Disk (GB, only grows)" error=${error} type="number" min=${m.disk_gb} inputRef=${initial(m.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`;
}
