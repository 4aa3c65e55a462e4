// The tenant's firewall rules, in the order they apply: added, edited in place, deleted, and moved by
// drag and drop or by keyboard (a move up/down button on each row, or Alt+Arrow on a
// focused row), each move a PATCH of the rule's position and announced in words.
// A chunk of its own: only a user who opens the page fetches it.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.js';
import { Field, ProblemView } from '../format.js';
import { Confirm } from '../confirm.js';

const rulesPath = '/api/client/firewall/rules';

// allRules reads every page of the rules: a tenant has few, and a move needs them all
// to name positions.
async function allRules() {
  const items = [];
  let cursor = '';
  do {
    const p = await call('GET', `${rulesPath}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...p.items);
    cursor = p.next_cursor || '';
  } while (cursor);
  return items;
}

// ruleName is a rule in words, for the announcements and the buttons' labels.
export const ruleName = (r) => r.comment || `${r.direction} ${r.protocol}${r.port ? ` ${r.port}` : ''} ${r.action}`;

export function Firewall() {
  const [rules, setRules] = useState(null);
  const [error, setError] = useState(null);
  const [said, setSaid] = useState('');
  const [dragging, setDragging] = useState(null);
  const [editing, setEditing] = useState(null);
  // focusAfter names the rule (and its control) to focus once the list is drawn again.
  const focusAfter = useRef(null);
  const body = useRef(null);

  const load = () => allRules().then(setRules, setError);
  useEffect(() => { load(); }, []);
  useEffect(() => {
    const f = focusAfter.current;
    if (!f || !body.current) return;
    focusAfter.current = null;
    const row = body.current.querySelector(`tr[data-rule="${CSS.escape(f.id)}"]`);
    const el = (f.control && row?.querySelector(`button[data-move="${f.control}"]:not([disabled])`)) || row;
    el?.focus();
  }, [rules]);

  // move puts rule r at position to (1-based), as the API numbers them.
  const move = async (r, to, control) => {
    if (!rules || to < 1 || to > rules.length || to === r.position) return;
    setError(null);
    try {
      await call('PATCH', `${rulesPath}/${encodeURIComponent(r.id)}`, { position: to });
      focusAfter.current = { id: r.id, control };
      await load();
      setSaid(`${ruleName(r)} moved to position ${to} of ${rules.length}.`);
    } catch (e) {
      setError(e);
      setSaid(`Could not move ${ruleName(r)}: ${e.message}`);
    }
  };
  const remove = async (r) => {
    setError(null);
    try {
      await call('DELETE', `${rulesPath}/${encodeURIComponent(r.id)}`);
      await load();
      setSaid(`${ruleName(r)} deleted.`);
    } catch (e) {
      setError(e);
    }
  };
  const onKey = (r) => (e) => {
    if (!e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
    e.preventDefault();
    move(r, r.position + (e.key === 'ArrowUp' ? -1 : 1));
  };
  const drop = (r) => (e) => {
    e.preventDefault();
    const from = rules?.find((x) => x.id === (e.dataTransfer.getData('text/plain') || dragging));
    setDragging(null);
    if (from) move(from, r.position);
  };

  return html`<main id="main">
    <h1>Firewall</h1>
    <p>Rules apply in order, the first that matches deciding. Drag a row to move it, or
      focus a row and press Alt+Up or Alt+Down, or use its move buttons.</p>
    <p class="sr-only" role="status" aria-live="polite" data-announce>${said}</p>
    <${ProblemView} error=${error} />
    <${AddRule} count=${rules?.length || 0} onAdded=${(r) => { load(); setSaid(`${ruleName(r)} added at position ${r.position}.`); }} />
    ${rules && html`<div class="table-wrap" tabindex="0"><table class="rules">
      <caption class="sr-only">Firewall rules, in the order they apply</caption>
      <thead><tr><th scope="col">#</th><th scope="col">Direction</th><th scope="col">Action</th><th scope="col">Protocol</th>
        <th scope="col">Port</th><th scope="col">Source</th><th scope="col">Destination</th><th scope="col">Machine</th>
        <th scope="col">Comment</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody ref=${body}>${rules.map((r) => html`<tr key=${r.id} data-rule=${r.id} data-position=${r.position} tabindex="0"
          draggable="true" class=${dragging === r.id ? 'dragging' : undefined}
          aria-label=${`Rule ${r.position} of ${rules.length}: ${ruleName(r)}`}
          onKeyDown=${onKey(r)}
          onDragStart=${(e) => { e.dataTransfer.setData('text/plain', r.id); e.dataTransfer.effectAllowed = 'move'; setDragging(r.id); }}
          onDragEnd=${() => setDragging(null)}
          onDragOver=${(e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'move'; }}
          onDrop=${drop(r)}>
        <td>${r.position}</td><td>${r.direction}</td><td>${r.action}${r.enabled === false ? ' (off)' : ''}</td><td>${r.protocol}</td>
        <td>${r.port || 'any'}</td><td>${r.source || 'any'}</td><td>${r.destination || 'any'}</td>
        <td>${r.machine_id || 'all'}</td><td>${r.comment}</td>
        <td class="row-actions">
          <button type="button" data-edit aria-expanded=${editing === r.id} aria-label=${`Edit ${ruleName(r)}`}
            onClick=${() => setEditing(editing === r.id ? null : r.id)}>Edit</button>
          <button type="button" data-move="up" disabled=${r.position === 1} aria-label=${`Move ${ruleName(r)} up`}
            onClick=${() => move(r, r.position - 1, 'up')}>↑</button>
          <button type="button" data-move="down" disabled=${r.position === rules.length} aria-label=${`Move ${ruleName(r)} down`}
            onClick=${() => move(r, r.position + 1, 'down')}>↓</button>
          <${Confirm} name="delete" label="Delete" question=${`Delete ${ruleName(r)}?`} yes="Delete" onYes=${() => remove(r)} />
        </td>
      </tr>${editing === r.id && html`<tr key=${`${r.id}-edit`} class="edit-row"><td colspan="10">
        <${EditRule} rule=${r} onCancel=${() => { setEditing(null); focusAfter.current = { id: r.id }; setRules([...rules]); }}
          onSaved=${(x) => { setEditing(null); focusAfter.current = { id: r.id }; load(); setSaid(`${ruleName(x)} saved.`); }} />
      </td></tr>`}`)}</tbody>
    </table></div>
    ${rules.length === 0 && html`<p>No rules yet.</p>`}`}
  </main>`;
}

const select = (name, label, values, value) => html`<label class="field"><span>${label}</span>
  <select name=${name} value=${value}>${values.map((v) => html`<option value=${v}>${v}</option>`)}</select></label>`;

const ruleFields = ['direction', 'action', 'protocol', 'port', 'source', 'destination', 'machine_id', 'comment'];

// EditRule edits one rule in place: its fields as they are, and a PATCH of those
// changed; the API's field errors show next to their fields.
function EditRule({ rule, onSaved, onCancel }) {
  const [error, setError] = useState(null);
  const first = useRef(null);
  useEffect(() => { first.current?.querySelector('select')?.focus(); }, []);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const patch = {};
    for (const k of ruleFields) {
      const v = (f.get(k) || '').trim();
      // A field emptied is null: the API's way to clear a rule's port, address or machine.
      if (v !== (rule[k] || '')) patch[k] = v === '' ? null : v;
    }
    const enabled = f.get('enabled') === 'on';
    if (enabled !== (rule.enabled !== false)) patch.enabled = enabled;
    setError(null);
    if (Object.keys(patch).length === 0) { onCancel(); return; }
    try {
      onSaved(await call('PATCH', `${rulesPath}/${encodeURIComponent(rule.id)}`, patch));
    } catch (err) {
      setError(err);
    }
  };
  const field = (name, label) => html`<${Field} name=${name} label=${label} error=${error} defaultValue=${rule[name] || ''} />`;
  return html`<form onSubmit=${submit} aria-label=${`Edit ${ruleName(rule)}`} onKeyDown=${(e) => e.key === 'Escape' && onCancel()}>
    <${ProblemView} error=${error} />
    <div class="grid" ref=${first}>
      ${select('direction', 'Direction', ['in', 'out'], rule.direction)}
      ${select('action', 'Action', ['accept', 'drop', 'reject'], rule.action)}
      ${select('protocol', 'Protocol', ['tcp', 'udp', 'icmp', 'ipv6-icmp', 'any'], rule.protocol)}
      ${field('port', 'Port (e.g. 22 or 8000:8080)')}
      ${field('source', 'Source (address or CIDR)')}
      ${field('destination', 'Destination')}
      ${field('machine_id', 'Machine (empty: all)')}
      ${field('comment', 'Comment')}
      <label class="check"><input type="checkbox" name="enabled" defaultChecked=${rule.enabled !== false} /> Enabled</label>
    </div>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

// AddRule asks for a new rule, placed last unless a position is given.
function AddRule({ count, onAdded }) {
  const [error, setError] = useState(null);
  const [open, setOpen] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const rule = { direction: f.get('direction'), action: f.get('action'), protocol: f.get('protocol') };
    for (const k of ['port', 'source', 'destination', 'comment', 'machine_id']) if (f.get(k)) rule[k] = f.get(k).trim();
    if (f.get('position')) rule.position = Number(f.get('position'));
    setError(null);
    try {
      onAdded(await call('POST', rulesPath, rule));
      e.target.reset();
      setOpen(false);
    } catch (err) {
      setError(err);
    }
  };
  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>New rule</button>`;
  return html`<form class="card" onSubmit=${submit} aria-label="New rule">
    <${ProblemView} error=${error} />
    <div class="grid">
      ${select('direction', 'Direction', ['in', 'out'])}
      ${select('action', 'Action', ['accept', 'drop', 'reject'])}
      ${select('protocol', 'Protocol', ['tcp', 'udp', 'icmp', 'ipv6-icmp', 'any'])}
      <${Field} name="port" label="Port (e.g. 22 or 8000:8080)" error=${error} />
      <${Field} name="source" label="Source (address or CIDR)" error=${error} />
      <${Field} name="destination" label="Destination" error=${error} />
      <${Field} name="machine_id" label="Machine (empty: all)" error=${error} />
      <${Field} name="position" label=${`Position (1–${count + 1}, empty: last)`} error=${error} type="number" min="1" />
      <${Field} name="comment" label="Comment" error=${error} />
    </div>
    <button type="submit" class="primary">Add rule</button> <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}
