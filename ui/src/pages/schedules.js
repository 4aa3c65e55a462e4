// The tenant's power and backup schedules: listed, added with a cron editor (presets
// and the raw expression, said in words, with the next five runs computed in the
// page), edited in place (cron, time zone, what it does, on or off), and deleted. A chunk of its own, with the cron evaluator.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { useList } from '../choices.js';
import { days, next, parse, words } from '../cron.js';

const kinds = { power: '/api/resources/power-schedules', backup: '/api/resources/backup-schedules' };
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
function inWords(expr) {
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
function EditSchedule({ s, onSaved, onCancel }) {
  const [error, setError] = useState(null);
  const [cron, setCron] = useState(s.cron);
  const first = useRef(null);
  useEffect(() => { first.current?.focus(); }, []);
  let said = '';
  try { said = `Runs ${words(parse(cron))}.`; } catch (e) { said = `This page cannot read the expression: ${e.message}.`; }
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
      <${Field} name="timezone" label="Time zone" error=${error} defaultValue=${s.timezone} />
      ${s.kind === 'power'
        ? opts('action', 'Action', ['start', 'stop', 'shutdown', 'reboot'], s.action)
        : html`${opts('mode', 'Mode', ['snapshot', 'suspend', 'stop'], s.mode)}
          <${Field} name="retention" label="Backups kept (1–100)" error=${error} type="number" min="1" max="100" defaultValue=${s.retention} />`}
      <label class="check"><input type="checkbox" name="enabled" defaultChecked=${s.enabled} /> On</label>
    </div>
    <p id=${`words-${s.id}`} aria-live="polite" data-edit-words>${said}</p>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

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
  const fmt = (() => {
    try { return new Intl.DateTimeFormat(undefined, { timeZone: zone, dateStyle: 'full', timeStyle: 'short' }); } catch { return null; }
  })();

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
      ${said && runs.length === 0 && html`<p>It does not run in the next five years.</p>`}
      ${runs.length > 0 && fmt && html`<p>The next runs:</p><ol class="runs" data-next-runs>${runs.map((d) => html`<li>${fmt.format(d)}</li>`)}</ol>`}
    </fieldset>
    <button type="submit" class="primary">Add schedule</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}
