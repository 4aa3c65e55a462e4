// One machine's page in the client area: power with the task's progress, its facts,
// usage graphs, serial console and graphical console (lazy chunks), backups, snapshots, ISO and rescue,
// reinstall, resize, and its tasks. Every action answers a task, shown as its events
// arrive; a task's end refreshes the lists it changed.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.js';
import { listen, tasks } from '../live.js';
import { ProblemView, Section, Status, gb, mb, when } from '../format.js';
import { lazy } from '../lazy.js';
import * as icons from '../icons.js';
import { Addresses, Backups, Snapshots } from './machine-data.js';
import { Media, Reinstall, Resize } from './machine-actions.js';
import { locationName, useOwnLocations } from '../location.js';
import { Confirm } from '../confirm.js';
import { go } from '../router.js';

const Graphs = lazy(() => import('../graphs.js'), 'Graphs');
const Console = lazy(() => import('../terminal.js'), 'Console');
const VNC = lazy(() => import('../vnc.js'), 'VNC');
// The rename, boot order and deletion, and the operators' part: a chunk of their own,
// out of the first load.
const Manage = lazy(() => import('./machine-manage.js'), 'Manage');
const Operate = lazy(() => import('./machine-manage.js'), 'Operate');
// The machine's usage for invoices: the table the overview and the tenant's page show.
const Usage = lazy(() => import('../usage.js'), 'Usage');

export const clientBase = '/api/client/machines';

// TaskLine shows a task's progress, updated as its events arrive.
export function TaskLine({ task }) {
  if (!task) return null;
  const t = tasks.value[task.id] || task;
  return html`<span class="task" aria-live="polite">${t.type}: <${Status} value=${t.status} />${t.error ? html` <span class="field-error">${t.error}</span>` : ''}</span>`;
}

const actions = [['start', 'Start', icons.Play], ['stop', 'Stop', icons.Stop], ['shutdown', 'Shut down', icons.Stop], ['reboot', 'Reboot', icons.Reboot],
  ['suspend', 'Suspend', icons.Stop], ['resume', 'Resume', icons.Play]];

const parts = [['addresses', 'Addresses'], ['graphs', 'Graphs'], ['console', 'Console'], ['vnc', 'VNC'], ['backups', 'Backups'], ['snapshots', 'Snapshots'],
  ['media', 'ISO and rescue'], ['reinstall', 'Reinstall'], ['resize', 'Resize'], ['usage', 'Usage'], ['manage', 'Name and deletion'], ['operate', 'Operator'], ['tasks', 'Tasks']];

// at joins a path and its query to a route of the client area, adding the tenant an
// operator acts for (?tenant_id=: the client area wants it of operators).
export const scoped = (url, tenant) => (path) => {
  const full = `${url}${path}`;
  return tenant ? `${full}${full.includes('?') ? '&' : '?'}tenant_id=${encodeURIComponent(tenant)}` : full;
};

// Machine is one machine's page; admin shows it to an operator, acting for the
// machine's tenant (the graphs and the console through the operators' routes).
export function Machine({ id, admin, tenant }) {
  const [m, setM] = useState(null);
  const [list, setList] = useState([]);
  const [error, setError] = useState(null);
  const [task, setTask] = useState(null);
  const [ended, setEnded] = useState(0);
  const [consoleOpen, setConsoleOpen] = useState(false);
  const [vncOpen, setVncOpen] = useState(false);
  // Its location: always for operators, for a tenant user where it has more than one.
  const { items: locations, names } = useOwnLocations(!!admin);
  const url = `${clientBase}/${encodeURIComponent(id)}`;
  const virt = `/api/virt/vms/${encodeURIComponent(id)}`;
  // A machine of no tenant has no client-area routes (they act for a tenant): an
  // operator reads and acts on it through the operators' own (/api/virt/vms/{id}).
  const own = !!admin && !tenant;
  const at = own ? (p) => `${virt}${p}` : scoped(url, admin ? tenant : '');

  const load = () => call('GET', at('')).then((x) => { setM(x); if (x.last_task) setTask((t) => t || x.last_task); }, setError);
  useEffect(() => {
    setM(null); setTask(null); setError(null); setConsoleOpen(false); setVncOpen(false);
    load();
    // Its tasks list is the client area's; one of no tenant shows those of this visit.
    if (own) setList([]);
    else call('GET', at('/tasks?limit=20')).then((p) => setList(p.items), () => {});
  }, [id, tenant]);
  useEffect(() => listen((type, data) => {
    if (type === 'machine.updated' && data.id === id) setM((x) => x && ({ ...x, ...data }));
    if (type === 'task.updated' && data.target_id === id) {
      setList((l) => (l.some((t) => t.id === data.id) ? l.map((t) => (t.id === data.id ? data : t)) : [data, ...l]));
      if (data.status === 'succeeded' || data.status === 'failed') { setEnded((n) => n + 1); load(); }
    }
  }), [id]);

  // act runs an action that answers {task} and shows the task; it rethrows the
  // problem for the form to show next to its fields.
  // A path of its own (/api/...) is called as it is, not under the client area's.
  const act = async (method, path, body) => {
    const r = await call(method, path.startsWith('/api/') ? path : at(path), body);
    setTask(r.task);
    // The task's events can come before this answer: a task the list has is newer.
    setList((l) => (l.some((t) => t.id === r.task.id) ? l : [r.task, ...l]));
    return r.task;
  };
  const power = async (action) => {
    setError(null);
    try { await act('POST', `/actions/${action}`); } catch (err) { setError(err); }
  };
  const kit = { m, at, act, ended, own };
  // The parts a machine of no tenant lacks: backups, snapshots and a resize are the
  // client area's (a tenant's quota and plan), with no operators' route of their own.
  const shown = (p) => !own || !['backups', 'snapshots', 'resize'].includes(p);

  return html`<main id="main">
    <p><a href=${admin ? '/admin/machines' : '/machines'}>← Machines</a></p>
    <${ProblemView} error=${error} />
    ${m && html`<h1>${m.name} <${Status} value=${m.status} />${m.rescue ? html` <span class="badge s-suspended">rescue</span>` : ''}</h1>
      <nav class="parts" aria-label="On this page"><ul>${parts.filter(([p]) => (p !== 'vnc' || m.display) && (p !== 'operate' || admin) && shown(p)).map(([p, label]) => html`<li><a href=${`#${p}`}>${label}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${actions.map(([a, label, Icon]) => html`<button onClick=${() => power(a)} data-action=${a}><${Icon} />${label}</button>`)}
        <${Confirm} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${() => power('reset')} />
      </div>
      ${task && html`<p>Last action: <${TaskLine} task=${task} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${m.cpu_cores} CPU, ${mb(m.memory_mb)} memory, ${gb(m.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${m.template_id}</dd>
        <dt>Node</dt><dd>${m.node}</dd>
        ${(admin || locations.length > 1) && html`<dt>Location</dt><dd data-location>${locationName(names, m.location_id)}</dd>`}
        <dt>Addresses</dt><dd>${(m.interfaces || []).flatMap((i) => i.ip_addresses || []).join(', ') || (m.addresses || []).map((a) => a.address).join(', ') || 'none'}</dd>
        <dt>ISO</dt><dd>${m.media ? m.media.name : 'none'}</dd>
        <dt>Created</dt><dd>${when(m.created_at)}</dd>
      </dl>
      <div id="addresses"><${Addresses} m=${m} base=${admin ? virt : url} onMachine=${(x) => setM((old) => ({ ...old, ...x }))} /></div>
      <div id="graphs"><${Section} id="graphs-part" title="Graphs"><${Graphs} url=${`${admin ? virt : url}/usage-graphs`} /><//></div>
      <div id="console"><${Section} id="console-part" title="Serial console">
        ${consoleOpen
          ? html`<${Console} url=${`${admin ? virt : url}/console`} /><button type="button" onClick=${() => setConsoleOpen(false)}>Close console</button>`
          : html`<button type="button" onClick=${() => setConsoleOpen(true)}>Open console</button>`}
      <//></div>
      ${m.display && html`<div id="vnc"><${Section} id="vnc-part" title="Graphical console (VNC)">
        ${vncOpen
          ? html`<${VNC} url=${`${admin ? virt : url}/console`} /><button type="button" onClick=${() => setVncOpen(false)}>Close the graphical console</button>`
          : html`<button type="button" onClick=${() => setVncOpen(true)}>Open the graphical console</button>`}
      <//></div>`}
      ${own && html`<p class="muted" data-no-tenant>This machine belongs to no tenant: its backups, snapshots and resize come with one (Give to a tenant, on the machines list); the operator's part below changes its size or plan.</p>`}
      ${shown('backups') && html`<div id="backups"><${Backups} ...${kit} /></div>`}
      ${shown('snapshots') && html`<div id="snapshots"><${Snapshots} ...${kit} /></div>`}
      <div id="media"><${Media} ...${kit} /></div>
      <div id="reinstall"><${Reinstall} ...${kit} /></div>
      ${shown('resize') && html`<div id="resize"><${Resize} ...${kit} /></div>`}
      <div id="usage"><${Usage} path=${admin ? `${virt}/usage` : `${url}/usage`} /></div>
      <div id="manage"><${Manage} ...${kit} onGone=${() => go(admin ? '/admin/machines' : '/machines')} /></div>
      ${admin && html`<div id="operate"><${Operate} ...${kit} onMachine=${(x) => setM((old) => ({ ...old, ...x }))} /></div>`}
      <div id="tasks"><${Section} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${list.map((t) => tasks.value[t.id] || t).map((t) => html`<tr key=${t.id}><td>${t.type}</td><td><${Status} value=${t.status} /></td><td>${when(t.created_at)}</td><td>${t.error || ''}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`;
}
