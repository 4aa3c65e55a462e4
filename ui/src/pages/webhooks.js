// Webhooks (/webhooks for a tenant's users, /admin/webhooks for operators): the list,
// a new one (its secret shown once, as the API answers it only then), one edited in
// place (URL, events, a new secret, on or off), one deleted, and its delivery log:
// each event sent with its status and attempts (when, the receiver's status code or
// the error, how long), a delivery sent again. A tenant user's webhooks get its
// tenant's events; an operator's every tenant's, or one tenant's it names. A chunk of
// its own.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, Status, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { tenantsPath, useList } from '../choices.js';
import { usePaged, useFocusFirst, useRun } from '../paging.js';

const base = '/api/resources/webhooks';
const hookPath = (w) => `${base}/${encodeURIComponent(w.id)}`;

// types are the event types a webhook may name (the API's enum), with what each says.
const types = [
  ['machine.updated', 'a machine changed (status, sizes, addresses)'],
  ['machine.deleted', 'a machine deleted'],
  ['machine.terminated', 'a machine terminated'],
  ['machine.traffic_exceeded', 'a machine past its traffic allowance'],
  ['task.updated', 'a task started, progressed or ended'],
  ['alert.updated', 'an alert fired, was acknowledged or resolved'],
  ['tenant.suspended', 'the tenant suspended'],
  ['tenant.unsuspended', 'the tenant unsuspended'],
];
const every = '*';

// Events is the fieldset of a webhook's event types: every one (`*`), or those ticked.
function Events({ error, chosen }) {
  const [all, setAll] = useState(chosen ? chosen.includes(every) : true);
  const msg = error?.fields?.events;
  return html`<fieldset aria-describedby=${msg ? 'events-error' : undefined}>
    <legend>Events</legend>
    <label class="check"><input type="checkbox" name="events" value=${every} checked=${all} onChange=${(e) => setAll(e.target.checked)} /> Every event</label>
    ${!all && types.map(([t, what]) => html`<label class="check"><input type="checkbox" name="events" value=${t} defaultChecked=${chosen?.includes(t)} /> <code>${t}</code>: ${what}</label>`)}
    ${msg && html`<span class="field-error" id="events-error">${msg}</span>`}
  </fieldset>`;
}

// chosenEvents reads the events of a form: `*` alone when Every event is ticked.
function chosenEvents(f) {
  const ev = f.getAll('events').map(String);
  return ev.includes(every) ? [every] : ev;
}

// NewWebhook makes a webhook; the answer's secret is handed to onMade, to be shown once.
function NewWebhook({ admin, onMade }) {
  const [open, setOpen] = useState(false);
  const [error, run] = useRun();
  const tenants = useList(admin ? tenantsPath : null);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { url: String(f.get('url')).trim(), events: chosenEvents(f), enabled: f.get('enabled') === 'on' };
    if (String(f.get('secret'))) body.secret = String(f.get('secret'));
    if (admin && f.get('tenant_id')) body.tenant_id = String(f.get('tenant_id'));
    let made;
    if (await run(async () => { made = await call('POST', base, body); })) { setOpen(false); onMade(made); }
  };
  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>New webhook</button>`;
  return html`<form class="card" onSubmit=${submit} aria-label="New webhook">
    <h2>New webhook</h2>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="url" label="URL (http or https)" error=${error} type="url" required maxlength="2048" autocomplete="off" spellcheck="false" />
      <${Field} name="secret" label="Secret (blank: one is made; 16 to 200 characters)" error=${error} minlength="16" maxlength="200" autocomplete="off" spellcheck="false" />
      ${admin && html`<label class="field"><span>Tenant</span><select name="tenant_id" aria-invalid=${error?.fields?.tenant_id ? 'true' : undefined}>
        <option value="">every tenant's events</option>
        ${(tenants?.items || []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select>
        ${error?.fields?.tenant_id && html`<span class="field-error">${error.fields.tenant_id}</span>`}</label>`}
    </div>
    <${Events} error=${error} />
    <label class="check"><input type="checkbox" name="enabled" defaultChecked /> Enabled</label>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}

// EditWebhook changes a webhook in place: only what changed is sent (a blank secret
// keeps it); the API's field errors show next to their fields.
function EditWebhook({ w, onSaved, onCancel }) {
  const [error, run] = useRun();
  const first = useFocusFirst();
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const patch = {};
    const url = String(f.get('url')).trim();
    if (url !== w.url) patch.url = url;
    const ev = chosenEvents(f);
    if (JSON.stringify([...ev].sort()) !== JSON.stringify([...w.events].sort())) patch.events = ev;
    if (String(f.get('secret'))) patch.secret = String(f.get('secret'));
    const enabled = f.get('enabled') === 'on';
    if (enabled !== w.enabled) patch.enabled = enabled;
    if (Object.keys(patch).length === 0) { onCancel(); return; }
    if (await run(() => call('PATCH', hookPath(w), patch))) onSaved();
  };
  return html`<form onSubmit=${submit} aria-label=${`Edit webhook ${w.url}`} onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="url" label="URL" error=${error} type="url" required maxlength="2048" defaultValue=${w.url} inputRef=${first} spellcheck="false" />
      <${Field} name="secret" label="New secret (blank: unchanged)" error=${error} minlength="16" maxlength="200" autocomplete="off" spellcheck="false" />
    </div>
    <${Events} error=${error} chosen=${w.events} />
    <label class="check"><input type="checkbox" name="enabled" defaultChecked=${w.enabled} /> Enabled${w.disabled_reason ? ' (enabling it clears its failures in a row)' : ''}</label>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

// attempt says one attempt: when, the receiver's status code or the error, how long.
const attempt = (a) => `${when(a.at)}: ${a.status_code ? `HTTP ${a.status_code}` : (a.error || 'no answer')} (${a.duration_ms} ms)`;

// Deliveries is a webhook's delivery log, a page of 20 (oldest event first, as the API
// pages it), each delivery sent again with its button. While one is pending the log
// is read again every 3 s, so its attempts show as they happen.
function Deliveries({ w }) {
  const { page, error, reload, pager } = usePaged(`${hookPath(w)}/deliveries?limit=20`);
  const [problem, run] = useRun();
  const pending = page?.items.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return undefined;
    const t = setTimeout(reload, 3000);
    return () => clearTimeout(t);
  }, [page]);
  const again = (d) => run(() => call('POST', `${hookPath(w)}/deliveries/${encodeURIComponent(d.id)}/redeliver`)).then((ok) => ok && reload());
  return html`<section aria-label=${`Deliveries of ${w.url}`} data-deliveries=${w.id}>
    <h3>Deliveries</h3>
    <${ProblemView} error=${error || problem} />
    <button type="button" data-refresh onClick=${reload}>Refresh</button>
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Deliveries of ${w.url}</caption>
      <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((d) => html`<tr key=${d.id} data-delivery=${d.id} data-event-type=${d.event_type} data-status=${d.status}>
        <td><code>${d.event_type}</code><br /><span class="muted">${when(d.created_at)}</span></td>
        <td><${Status} value=${d.status} />${d.error ? html`<br /><span class="muted">${d.error}</span>` : ''}</td>
        <td data-attempts=${d.attempts.length}>${d.attempts.length === 0 ? 'none yet' : html`<ol>${d.attempts.map((a) => html`<li data-code=${a.status_code || ''}>${attempt(a)}</li>`)}</ol>`}</td>
        <td>${d.status === 'pending' && d.next_attempt_at ? when(d.next_attempt_at) : ''}</td>
        <td><button type="button" data-redeliver=${d.id} disabled=${!w.enabled} onClick=${() => again(d)}>Send again</button></td>
      </tr>`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No deliveries yet: one is made for each event the webhook names.</p>`}
    ${pager}`}
  </section>`;
}

// Row is one webhook with its actions; its edit form and delivery log open under it.
function Row({ w, admin, tenant, open, onOpen, onChanged }) {
  const [problem, run] = useRun();
  const del = async () => { if (await run(() => call('DELETE', hookPath(w)))) onChanged(); };
  const cols = admin ? 5 : 4;
  return html`<tr data-webhook=${w.url}><td><code>${w.url}</code></td>
      <td data-events>${w.events.join(', ')}</td>
      ${admin && html`<td>${w.tenant_id ? tenant || w.tenant_id : 'every tenant'}</td>`}
      <td data-webhook-state>${w.enabled ? 'enabled' : 'disabled'}${w.disabled_reason ? html`<br /><span class="muted">${w.disabled_reason}</span>` : ''}
        ${w.failed_in_row ? html`<br /><span class="muted">${w.failed_in_row} failed in a row</span>` : ''}</td>
      <td class="row-actions">
        <button type="button" data-edit aria-expanded=${open === 'edit' ? 'true' : 'false'} onClick=${() => onOpen('edit')}>Edit</button>
        <button type="button" data-show-deliveries aria-expanded=${open === 'log' ? 'true' : 'false'} onClick=${() => onOpen('log')}>Deliveries</button>
        <${Confirm} name="delete-webhook" label="Delete" yes="Yes, delete" question=${`Delete the webhook to ${w.url} and its delivery log?`} onYes=${del} />
      </td></tr>
    ${(open || problem) && html`<tr class="edit-row" data-webhook-more=${w.url}><td colspan=${cols}>
      <${ProblemView} error=${problem} />
      ${open === 'edit' && html`<${EditWebhook} w=${w} onSaved=${onChanged} onCancel=${() => onOpen('edit')} />`}
      ${open === 'log' && html`<${Deliveries} w=${w} />`}
    </td></tr>`}`;
}

export function Webhooks({ admin }) {
  const { page, error, reload, pager } = usePaged(`${base}?limit=50`);
  const tenants = useList(admin ? tenantsPath : null);
  const names = Object.fromEntries((tenants?.items || []).map((t) => [t.id, t.name]));
  const [made, setMade] = useState(null);
  const [open, setOpen] = useState({ id: null, what: null });
  const toggle = (w, what) => setOpen(open.id === w.id && open.what === what ? { id: null, what: null } : { id: w.id, what });
  const changed = () => { setOpen({ id: null, what: null }); reload(); };
  return html`<main id="main">
    <h1>Webhooks</h1>
    <p class="muted">${admin ? 'A webhook gets every tenant\'s events, or one tenant\'s.' : 'A webhook gets your tenant\'s events.'}
      Each event is POSTed as JSON, signed in <code>Vmplane-Signature</code> with the webhook's secret, and retried for a day until the receiver answers 2xx.</p>
    <${NewWebhook} admin=${admin} onMade=${(m) => { setMade(m); reload(); }} />
    ${made && html`<div class="card" role="status" data-made>
      <p>The secret of the webhook to <code>${made.url}</code>, shown only now: keep it to check the signatures.</p>
      <p><code data-webhook-secret>${made.secret}</code></p><button type="button" onClick=${() => setMade(null)}>Done</button></div>`}
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Webhooks</caption>
      <thead><tr><th scope="col">URL</th><th scope="col">Events</th>${admin && html`<th scope="col">Tenant</th>`}<th scope="col">State</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((w) => html`<${Row} key=${w.id} w=${w} admin=${admin} tenant=${names[w.tenant_id]}
        open=${open.id === w.id ? open.what : null} onOpen=${(what) => toggle(w, what)} onChanged=${changed} />`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No webhooks yet.</p>`}
    ${pager}`}
  </main>`;
}
