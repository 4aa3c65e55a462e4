// The operators' tasks (/admin/tasks): every tenant's tasks and those of no tenant,
// as GET /api/resources/tasks pages them (oldest first, by id, with the API's
// cursors; the route has no filter of its own, so the page offers only the page
// size), each with its progress as the event stream's task.updated events arrive, and
// a machine's task linked to the machine's page. A chunk of its own.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { tasks } from '../live.js';
import { ProblemView, Status, when } from '../format.js';
import { usePaged } from '../paging.js';

// machinePage is the operators' page of a task's machine (acting for its tenant, if any).
const machinePage = (t) => `/admin/machines/${encodeURIComponent(t.target_id)}${t.tenant_id ? `?tenant=${encodeURIComponent(t.tenant_id)}` : ''}`;

export function Tasks() {
  const [limit, setLimit] = useState('50');
  const { page, error, pager } = usePaged(`/api/resources/tasks?limit=${limit}`);
  const seen = tasks.value;
  // The tasks of the page as their latest events say; on the last page, the tasks the
  // stream brought since follow them (they are newer, so the API would list them last).
  const rows = page ? page.items.map((t) => seen[t.id] || t) : [];
  if (page && !page.next_cursor) {
    const have = new Set(rows.map((t) => t.id));
    rows.push(...Object.values(seen).filter((t) => !have.has(t.id)).sort((a, b) => (a.id < b.id ? -1 : 1)));
  }
  return html`<main id="main">
    <h1>Tasks</h1>
    <form class="filters one" onSubmit=${(e) => e.preventDefault()} aria-label="Tasks a page">
      <label class="field"><span>A page</span><select name="limit" value=${limit} onChange=${(e) => setLimit(e.target.value)}>
        ${['20', '50', '200'].map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
    </form>
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table data-tasks>
      <caption class="sr-only">Tasks, oldest first</caption>
      <thead><tr><th scope="col">Task</th><th scope="col">Target</th><th scope="col">Tenant</th><th scope="col">Status</th>
        <th scope="col">Created</th><th scope="col">Finished</th><th scope="col">Error</th></tr></thead>
      <tbody>${rows.map((t) => html`<tr key=${t.id} data-task=${t.id}><td>${t.type}</td>
        <td>${t.target_type === 'machine' ? html`<a href=${machinePage(t)}>${t.target_id}</a>` : `${t.target_type ? `${t.target_type}/` : ''}${t.target_id || ''}`}</td>
        <td>${t.tenant_id || html`<span class="muted">none</span>`}</td><td><${Status} value=${t.status} /></td>
        <td>${when(t.created_at)}</td><td>${t.finished_at ? when(t.finished_at) : ''}</td><td>${t.error || ''}</td></tr>`)}</tbody>
    </table></div>
    ${rows.length === 0 && html`<p>No tasks yet.</p>`}
    ${pager}`}
  </main>`;
}
