// The operators' ISO library (/admin/isos): the images with their state (pending
// while fetched, awaiting their upload, ready, or failed with the reason), one added
// by its URL (vmplane, or a Proxmox node, fetches it and checks its checksum) or
// uploaded from this browser (the record first, then its file as the raw body of
// PUT .../content, with the upload's progress), and one deleted. Each image's task
// moves it on: its events on the stream read the list again. A chunk of its own.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { Problem, call, renew, session } from '../api.js';
import { Field, ProblemView, Status, bytes, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { forget, isosPath, tenantsPath, useList } from '../choices.js';
import { usePaged, useRun } from '../paging.js';
import { listen } from '../live.js';

const base = '/api/resources/isos';
const isoPath = (i) => `${base}/${encodeURIComponent(i.id)}`;

// hashCap is the largest file whose SHA-256 the page computes when no checksum is
// given: the browser's digest reads the whole file into memory at once.
const hashCap = 1 << 30;

// sha256 is a file's checksum as the API takes it.
async function sha256(file) {
  const d = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return `sha256:${[...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

// put sends a file as the raw body of PUT path, with the access token, calling
// progress(sent, total) as it goes (fetch reports no upload progress; XHR does). An
// expired token is renewed once. It answers the image, or throws the API's problem.
function put(path, file, progress) {
  const once = () => new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open('PUT', path);
    x.setRequestHeader('Authorization', `Bearer ${session.value?.token}`);
    x.setRequestHeader('Content-Type', 'application/octet-stream');
    x.setRequestHeader('X-Vmplane-CSRF', '1');
    x.upload.onprogress = (e) => progress(e.loaded, e.total);
    x.onload = () => {
      let body = {};
      try { body = JSON.parse(x.responseText); } catch { body = { title: x.statusText, detail: x.responseText }; }
      if (x.status >= 200 && x.status < 300) resolve(body);
      else reject(new Problem(body, x.status));
    };
    x.onerror = () => reject(new Problem({ title: 'The upload broke off', detail: 'The connection closed before the server answered: send the file again.' }, 0));
    x.send(file);
  });
  return once().catch(async (e) => {
    if (e.status !== 401) throw e;
    await renew();
    return once();
  });
}

// NewISO adds an image: by its URL, or as an upload of a file chosen here.
function NewISO({ onAdded }) {
  const [open, setOpen] = useState(false);
  const [how, setHow] = useState('url');
  const [error, run] = useRun();
  const [sent, setSent] = useState(null);
  const tenants = useList(tenantsPath);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: String(f.get('name')).trim(), checksum: String(f.get('checksum')).trim() };
    if (f.get('tenant_id')) body.tenant_id = String(f.get('tenant_id'));
    const file = f.get('file');
    const ok = await run(async () => {
      if (how === 'url') {
        body.url = String(f.get('url')).trim();
        onAdded((await call('POST', base, body)).iso);
        return;
      }
      if (!file || !file.size) throw new Problem({ title: 'Choose the image\'s file', errors: [{ field: 'file', message: 'choose a file' }] }, 400);
      if (!body.checksum) {
        if (file.size > hashCap) throw new Problem({ title: 'Give the checksum', errors: [{ field: 'checksum', message: `give it for a file over ${bytes(hashCap)}` }] }, 400);
        setSent({ what: 'Computing the checksum…' });
        body.checksum = await sha256(file);
      }
      body.upload = true;
      const added = await call('POST', base, body);
      onAdded(added.iso);
      setSent({ what: 'Uploading', n: 0, of: file.size });
      await put(`${isoPath(added.iso)}/content`, file, (n, of) => setSent({ what: 'Uploading', n, of }));
    });
    setSent(null);
    if (ok) { setOpen(false); onAdded(null); }
  };
  if (!open) return html`<button class="primary" onClick=${() => setOpen(true)}>Add an image</button>`;
  return html`<form class="card" onSubmit=${submit} aria-label="Add an image">
    <h2>Add an image</h2>
    <${ProblemView} error=${error} />
    <fieldset><legend>From</legend>
      <label class="choice"><input type="radio" name="how" value="url" checked=${how === 'url'} onChange=${() => setHow('url')} /> A URL, fetched by the server</label>
      <label class="choice"><input type="radio" name="how" value="upload" checked=${how === 'upload'} onChange=${() => setHow('upload')} /> A file on this computer, uploaded</label>
    </fieldset>
    <div class="grid">
      <${Field} name="name" label="Name" error=${error} required maxlength="100" />
      ${how === 'url' ? html`<${Field} name="url" label="URL (http or https)" error=${error} type="url" required spellcheck="false" />`
        : html`<${Field} name="file" label="File" error=${error} type="file" accept=".iso,application/x-iso9660-image,application/octet-stream" required />`}
      <${Field} name="checksum" label=${how === 'url' ? 'Checksum (sha256:<hex> or sha512:<hex>)' : `Checksum (blank: computed here, up to ${bytes(hashCap)})`}
        error=${error} required=${how === 'url'} spellcheck="false" autocomplete="off" />
      <label class="field"><span>Who sees it</span><select name="tenant_id" aria-invalid=${error?.fields?.tenant_id ? 'true' : undefined}>
        <option value="">every tenant (public)</option>
        ${(tenants?.items || []).map((t) => html`<option value=${t.id}>${t.name} only</option>`)}</select>
        ${error?.fields?.tenant_id && html`<span class="field-error">${error.fields.tenant_id}</span>`}</label>
    </div>
    ${sent && html`<p role="status" data-upload>${sent.what}${sent.of ? html` <progress max=${sent.of} value=${sent.n}>${Math.round((100 * sent.n) / sent.of)}%</progress>
      ${bytes(sent.n)} of ${bytes(sent.of)}` : ''}</p>`}
    <button type="submit" class="primary" disabled=${!!sent}>Add</button> <button type="button" disabled=${!!sent} onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}

export function ISOs() {
  const { page, error, reload, pager } = usePaged(`${base}?limit=50`);
  const tenants = useList(tenantsPath);
  const names = Object.fromEntries((tenants?.items || []).map((t) => [t.id, t.name]));
  const [problem, run] = useRun();
  const changed = () => { forget(isosPath); reload(); };
  // An image's task (its fetch or its upload) moves it on: read the list again.
  useEffect(() => listen((type, data) => {
    if (type === 'task.updated' && data.type?.startsWith('iso.')) changed();
  }), []);
  const del = (i) => run(() => call('DELETE', isoPath(i))).then((ok) => ok && changed());
  return html`<main id="main">
    <h1>ISO images</h1>
    <p class="muted">Images tenants mount in their machines' CD-ROM drive. A public image is every tenant's; another is one tenant's.</p>
    <${NewISO} onAdded=${changed} />
    <${ProblemView} error=${error || problem} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">ISO images</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Size</th><th scope="col">Who sees it</th>
        <th scope="col">Source</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((i) => html`<tr key=${i.id} data-iso=${i.name} data-status=${i.status}><td>${i.name}${i.file ? html`<br /><span class="muted">${i.file}</span>` : ''}</td>
        <td><${Status} value=${i.status} />${i.error ? html`<br /><span class="muted" data-iso-error>${i.error}</span>` : ''}</td>
        <td data-size>${i.size_bytes ? bytes(i.size_bytes) : ''}</td>
        <td>${i.tenant_id ? names[i.tenant_id] || i.tenant_id : 'every tenant'}</td>
        <td>${i.url ? html`<code>${i.url}</code>` : 'uploaded'}</td><td>${when(i.created_at)}</td>
        <td class="row-actions"><${Confirm} name="delete-iso" label="Delete" yes="Yes, delete" question=${`Delete ${i.name}?`} onYes=${() => del(i)} /></td></tr>`)}</tbody>
    </table></div>
    ${page.items.length === 0 && html`<p>No images yet.</p>`}
    ${pager}`}
  </main>`;
}
