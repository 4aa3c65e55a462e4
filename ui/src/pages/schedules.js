// The tenant's power and backup schedules: listed, added with a cron editor (presets
// and the raw expression, said in words, with the next five runs computed in the
// page), edited in place (cron, time zone, what it does, on or off), and deleted; and
// the operators' page of every tenant's schedules, edited with the same editor. A
// chunk of its own, with the cron evaluator.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { tenantsPath, useList } from '../choices.js';
import { usePaged, useFocusFirst, useRun } from '../paging.js';
import { days, next, parse, words } from '../cron.js';

export const kinds = { power: '/api/resources/power-schedules', backup: '/api/resources/backup-schedules' };
const machinesPath = '/api/client/machines?limit=100';

async function all(path) {
  const items = [];
  let cursor = '';
  do {
    const p = await call('GET', `${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...p.items);
    cursor = p.next_cursor || '';
  } while (cursor);
  return items;
}

// inWords is an expression in words, or the expression itself when the page cannot
// read it (the server may still: it is the judge).
export function inWords(expr) {
  try { return words(parse(expr)); } catch { return expr; }
}

export function Schedules() {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  const [editing, setEditing] = useState(null);
  const machines = useList(machinesPath);
  const names = Object.fromEntries((machines?.items || []).map((m) => [m.id, m.name]));

  const load = () => Promise.all([all(kinds.power), all(kinds.backup)])
    .then(([p, b]) => setList([...p.map((s) => ({ ...s, kind: 'power' })), ...b.map((s) => ({ ...s, kind: 'backup' }))]), setError);
  useEffect(() => { load(); }, []);
  const remove = (s) => call('DELETE', `${kinds[s.kind]}/${encodeURIComponent(s.id)}`).then(load, setError);

  return html`<main id="main">
    <h1>Schedules</h1>
    <${ProblemView} error=${error} />
    <${AddSchedule} machines=${machines?.items || []} onAdded=${load} />
    ${list && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Power and backup schedules</caption>
      <thead><tr><th scope="col">Machine</th><th scope="col">Does</th><th scope="col">When</th><th scope="col">Next run</th>
        <th scope="col">Last run</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${list.map((s) => html`<tr key=${s.id} data-schedule=${s.id} data-kind=${s.kind}>
        <td>${names[s.machine_id] || s.machine_id}</td>
        <td>${s.kind === 'power' ? s.action : `back up (${s.mode}), keep ${s.retention}`}</td>
        <td><code>${s.cron}</code> <span data-words>${inWords(s.cron)}</span> (${s.timezone})${s.enabled ? '' : ', off'}</td>
        <td>${when(s.next_run_at)}</td>
        <td>${s.last_run_at ? `${when(s.last_run_at)}: ${s.last_status || ''}` : 'never'}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${editing === s.id}
          onClick=${() => setEditing(editing === s.id ? null : s.id)}>Edit</button>
          <${Confirm} name="delete" label="Delete" question="Delete this schedule?" yes="Delete" onYes=${() => remove(s)} /></td>
      </tr>${editing === s.id && html`<tr key=${`${s.id}-edit`} class="edit-row"><td colspan="6">
        <${EditSchedule} s=${s} onCancel=${() => setEditing(null)} onSaved=${() => { setEditing(null); load(); }} />
      </td></tr>`}`)}</tbody>
    </table></div>
    ${list.length === 0 && html`<p>No schedules yet.</p>`}`}
  </main>`;
}

// EditSchedule edits one schedule in place: its expression (said in words as it is
// typed), time zone, action or backup mode and retention, and whether it is on; a
// PATCH of the fields changed, the API's field errors next to their fields.
export function EditSchedule({ s, onSaved, onCancel }) {
  const [error, setError] = useState(null);
  const [cron, setCron] = useState(s.cron);
  const first = useFocusFirst();
  const [zone, setZone] = useState(s.timezone);
  let said = '', runs = [];
  try {
    const c = parse(cron);
    said = `Runs ${words(c)} (${zone}).`;
    runs = next(c, zone, new Date());
  } catch (e) { said = `This page cannot read the expression: ${e.message}.`; }
  const fmt = formatIn(zone);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const now = { cron: cron.trim(), timezone: f.get('timezone').trim(), enabled: f.get('enabled') === 'on' };
    if (s.kind === 'power') now.action = f.get('action');
    else { now.mode = f.get('mode'); now.retention = Number(f.get('retention')); }
    const patch = Object.fromEntries(Object.entries(now).filter(([k, v]) => v !== s[k]));
    setError(null);
    if (Object.keys(patch).length === 0) { onCancel(); return; }
    try {
      await call('PATCH', `${kinds[s.kind]}/${encodeURIComponent(s.id)}`, patch);
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  const opts = (name, label, values, value) => html`<label class="field"><span>${label}</span><select name=${name} value=${value}
    aria-invalid=${error?.fields?.[name] ? 'true' : undefined}>${values.map((v) => html`<option value=${v}>${v}</option>`)}</select>
    ${error?.fields?.[name] && html`<span class="field-error">${error.fields[name]}</span>`}</label>`;
  return html`<form onSubmit=${submit} aria-label="Edit schedule" onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid">
      <${Field} name="cron" label="Cron expression" error=${error} value=${cron} inputRef=${first} spellcheck="false"
        onInput=${(e) => setCron(e.target.value)} aria-describedby=${`words-${s.id}`} />
      <${Field} name="timezone" label="Time zone" error=${error} value=${zone} onInput=${(e) => setZone(e.target.value.trim())} />
      ${s.kind === 'power'
        ? opts('action', 'Action', ['start', 'stop', 'shutdown', 'reboot'], s.action)
        : html`${opts('mode', 'Mode', ['snapshot', 'suspend', 'stop'], s.mode)}
          <${Field} name="retention" label="Backups kept (1–100)" error=${error} type="number" min="1" max="100" defaultValue=${s.retention} />`}
      <label class="check"><input type="checkbox" name="enabled" defaultChecked=${s.enabled} /> On</label>
    </div>
    <p id=${`words-${s.id}`} aria-live="polite" data-edit-words>${said}</p>
    <${NextRuns} runs=${runs} fmt=${fmt} read=${!said.startsWith('This page')} />
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

// formatIn formats a time in a time zone, or answers null for a zone the browser does
// not know (the server's field error says so once sent).
function formatIn(zone) {
  try { return new Intl.DateTimeFormat(undefined, { timeZone: zone, dateStyle: 'full', timeStyle: 'short' }); } catch { return null; }
}

// NextRuns lists the next five runs of an expression the page could read.
const NextRuns = ({ runs, fmt, read }) => html`${read && runs.length === 0 && html`<p>It does not run in the next five years.</p>`}
  ${runs.length > 0 && fmt && html`<p>The next runs:</p><ol class="runs" data-next-runs>${runs.map((d) => html`<li>${fmt.format(d)}</li>`)}</ol>`}`;

// preset makes the expression of a preset: hourly at a minute, daily at a time, weekly
// on a day at a time.
function preset(kind, minute, time, day) {
  const [h, m] = (time || '00:00').split(':').map(Number);
  if (kind === 'hourly') return `${Number(minute) || 0} * * * *`;
  if (kind === 'daily') return `${m} ${h} * * *`;
  return `${m} ${h} * * ${day}`;
}

// AddSchedule asks for a new schedule of one of the tenant's machines.
function AddSchedule({ machines, onAdded }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState(null);
  const [kind, setKind] = useState('power');
  const [mode, setMode] = useState('daily');
  const [minute, setMinute] = useState('0');
  const [time, setTime] = useState('03:00');
  const [day, setDay] = useState('1');
  const [raw, setRaw] = useState('');
  const [zone, setZone] = useState('UTC');
  const cron = mode === 'custom' ? raw : preset(mode, minute, time, day);

  let said, runs = [], unread = '';
  try {
    const c = parse(cron);
    said = words(c);
    runs = next(c, zone, new Date());
  } catch (e) {
    unread = e.message;
  }
  const fmt = formatIn(zone);

  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { machine_id: f.get('machine_id'), cron, timezone: zone };
    if (kind === 'power') body.action = f.get('action');
    else { body.retention = Number(f.get('retention')); body.mode = f.get('mode'); }
    setError(null);
    try {
      await call('POST', kinds[kind], body);
      setOpen(false);
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  const radio = (name, value, label, current, set) => html`<label class="choice"><input type="radio" name=${name} value=${value}
    checked=${current === value} onChange=${() => set(value)} /> ${label}</label>`;
  const cronError = error?.fields?.cron;

  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>New schedule</button>`;
  return html`<form class="card" onSubmit=${submit} aria-label="New schedule">
    <${ProblemView} error=${error} />
    <fieldset><legend>Kind</legend>
      ${radio('kind', 'power', 'Power', kind, setKind)} ${radio('kind', 'backup', 'Backup', kind, setKind)}
    </fieldset>
    <div class="grid">
      <label class="field"><span>Machine</span><select name="machine_id" required
        aria-invalid=${error?.fields?.machine_id ? 'true' : undefined}>
        ${machines.map((m) => html`<option value=${m.id}>${m.name}</option>`)}</select>
        ${error?.fields?.machine_id && html`<span class="field-error">${error.fields.machine_id}</span>`}</label>
      ${kind === 'power'
        ? html`<label class="field"><span>Action</span><select name="action">
            ${['start', 'stop', 'shutdown', 'reboot'].map((a) => html`<option value=${a}>${a}</option>`)}</select></label>`
        : html`<${Field} name="retention" label="Backups kept (1–100)" error=${error} type="number" min="1" max="100" defaultValue="7" />
            <label class="field"><span>Mode</span><select name="mode">
              ${['snapshot', 'suspend', 'stop'].map((m) => html`<option value=${m}>${m}</option>`)}</select></label>`}
    </div>
    <fieldset><legend>When</legend>
      ${radio('preset', 'hourly', 'Hourly', mode, setMode)} ${radio('preset', 'daily', 'Daily', mode, setMode)}
      ${radio('preset', 'weekly', 'Weekly', mode, setMode)} ${radio('preset', 'custom', 'Cron expression', mode, (v) => { setRaw(cron); setMode(v); })}
      <div class="grid">
        ${mode === 'hourly' && html`<label class="field"><span>At minute</span><input type="number" min="0" max="59" value=${minute} onInput=${(e) => setMinute(e.target.value)} /></label>`}
        ${mode === 'weekly' && html`<label class="field"><span>On</span><select value=${day} onChange=${(e) => setDay(e.target.value)}>
          ${days.map((d, i) => html`<option value=${i}>${d}</option>`)}</select></label>`}
        ${(mode === 'daily' || mode === 'weekly') && html`<label class="field"><span>At (HH:MM)</span><input type="time" value=${time} onInput=${(e) => setTime(e.target.value)} /></label>`}
        <label class="field"><span>Cron expression (minute hour day-of-month month day-of-week)</span>
          <input name="cron" value=${cron} readonly=${mode !== 'custom'} spellcheck="false"
            onInput=${(e) => { setRaw(e.target.value); setMode('custom'); }}
            aria-invalid=${cronError ? 'true' : undefined} aria-describedby="cron-words" />
          ${cronError && html`<span class="field-error" id="cron-error">${cronError}</span>`}</label>
        <label class="field"><span>Time zone</span>
          <input name="timezone" value=${zone} onInput=${(e) => setZone(e.target.value.trim())}
            aria-invalid=${error?.fields?.timezone ? 'true' : undefined} />
          ${error?.fields?.timezone && html`<span class="field-error">${error.fields.timezone}</span>`}</label>
      </div>
      <p id="cron-words" aria-live="polite" data-runs-at>${said ? `Runs ${said} (${zone}).` : `This page cannot read the expression: ${unread}.`}</p>
      <${NextRuns} runs=${runs} fmt=${fmt} read=${!!said} />
    </fieldset>
    <button type="submit" class="primary">Add schedule</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}

// AdminSchedules is the operators' page of every tenant's schedules (/admin/schedules):
// one kind at a time (power or backup), paged with the API's cursors, filtered by
// tenant and machine (the list routes' `tenant_id` and `machine_id`); each edited in
// place with the editor above (its expression in words and its next five runs) or
// deleted.
export function AdminSchedules() {
  const [filter, setFilter] = useState({ kind: 'power', tenant_id: '', machine_id: '' });
  const q = new URLSearchParams({ limit: '50' });
  if (filter.tenant_id) q.set('tenant_id', filter.tenant_id);
  if (filter.machine_id) q.set('machine_id', filter.machine_id);
  const { page, error, reload, pager } = usePaged(`${kinds[filter.kind]}?${q}`);
  const tenants = useList(tenantsPath);
  const names = Object.fromEntries((tenants?.items || []).map((t) => [t.id, t.name]));
  const [editing, setEditing] = useState(null);
  const [problem, run] = useRun();
  const remove = (s) => run(() => call('DELETE', `${kinds[s.kind]}/${encodeURIComponent(s.id)}`)).then(reload);
  const apply = (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setEditing(null);
    setFilter({ kind: f.get('kind'), tenant_id: f.get('tenant_id'), machine_id: String(f.get('machine_id')).trim() });
  };
  const items = (page?.items || []).map((s) => ({ ...s, kind: filter.kind }));
  return html`<main id="main">
    <h1>Schedules</h1>
    <p class="muted">Every tenant's power and backup schedules. A tenant's users add theirs on their own schedules page.</p>
    <form class="filters" role="search" aria-label="Filter schedules" onSubmit=${apply}>
      <label class="field"><span>Kind</span><select name="kind"><option value="power">power</option><option value="backup">backup</option></select></label>
      <label class="field"><span>Tenant</span><select name="tenant_id"><option value="">any</option>
        ${(tenants?.items || []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select></label>
      <${Field} name="machine_id" label="Machine id" error=${error} />
      <button type="submit">Filter</button>
    </form>
    <${ProblemView} error=${error || problem} />
    ${page && html`<div class="table-wrap" tabindex="0"><table data-schedules=${filter.kind}>
      <caption class="sr-only">${filter.kind === 'power' ? 'Power' : 'Backup'} schedules</caption>
      <thead><tr><th scope="col">Tenant</th><th scope="col">Machine</th><th scope="col">Does</th><th scope="col">When</th><th scope="col">Next run</th>
        <th scope="col">Last run</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${items.map((s) => html`<tr key=${s.id} data-schedule=${s.id} data-kind=${s.kind}>
        <td>${names[s.tenant_id] || s.tenant_id}</td>
        <td><a href=${`/admin/machines/${encodeURIComponent(s.machine_id)}?tenant=${encodeURIComponent(s.tenant_id)}`}>${s.machine_id}</a></td>
        <td>${s.kind === 'power' ? s.action : `back up (${s.mode}), keep ${s.retention}`}</td>
        <td><code>${s.cron}</code> <span data-words>${inWords(s.cron)}</span> (${s.timezone})<span data-state>${s.enabled ? '' : ', off'}</span></td>
        <td>${when(s.next_run_at)}</td>
        <td>${s.last_run_at ? `${when(s.last_run_at)}: ${s.last_status || ''}` : 'never'}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${editing === s.id ? 'true' : 'false'}
          onClick=${() => setEditing(editing === s.id ? null : s.id)}>Edit</button>
          <${Confirm} name="delete" label="Delete" question="Delete this schedule?" yes="Delete" onYes=${() => remove(s)} /></td>
      </tr>${editing === s.id && html`<tr key=${`${s.id}-edit`} class="edit-row"><td colspan="7">
        <${EditSchedule} s=${s} onCancel=${() => setEditing(null)} onSaved=${() => { setEditing(null); reload(); }} />
      </td></tr>`}`)}</tbody>
    </table></div>
    ${items.length === 0 && html`<p>No ${filter.kind} schedules${filter.tenant_id || filter.machine_id ? ' match' : ''}.</p>`}
    ${pager}`}
  </main>`;
}
