// Paged lists read with the API's cursors: the page, Previous and Next, and a reload
// after a change. Used by the operator's lists (tenants, plans, audit, health checks).
import { html } from 'htm/preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { call } from './api.js';

// usePaged reads path (with its query, without cursor) a page at a time; a new path
// starts again at the first page. It answers { page, error, setError, reload, pager }.
export function usePaged(path) {
  const [cursors, setCursors] = useState(['']);
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const [n, setN] = useState(0);
  const [seen, setSeen] = useState(path);
  const cursor = seen === path ? cursors[cursors.length - 1] : '';
  useEffect(() => {
    if (seen !== path) { setSeen(path); setCursors(['']); }
    let live = true;
    const sep = path.includes('?') ? '&' : '?';
    call('GET', cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path)
      .then((p) => { if (live) { setPage(p); setError(null); } }, (e) => live && setError(e));
    return () => { live = false; };
  }, [path, cursor, n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  const pager = page && html`<nav class="pager" aria-label="Pages">
    <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous</button>
    <button type="button" disabled=${!page.next_cursor} onClick=${() => setCursors([...cursors, page.next_cursor])}>Next</button>
  </nav>`;
  return { page, error, setError, reload, pager };
}

// numbers reads the named number inputs of a form that are filled in.
export function numbers(form, keys) {
  const out = {};
  for (const k of keys) {
    const v = String(form.get(k) ?? '').trim();
    if (v !== '') out[k] = Number(v);
  }
  return out;
}

// useRun runs an action, keeping its problem for the form; it answers whether it
// succeeded.
export function useRun() {
  const [error, setError] = useState(null);
  const run = async (fn) => { setError(null); try { await fn(); return true; } catch (e) { setError(e); return false; } };
  return [error, run, setError];
}

// useFocusFirst is a ref for the field an in-place form opens on: it takes the focus
// once, when the form appears.
export function useFocusFirst() {
  const first = useRef(null);
  useEffect(() => { first.current?.focus(); }, []);
  return first;
}

// readAll reads a list route page by page (path with its query and limit, without
// cursor) until its end, cap items, or live() turning false; it answers the items and
// whether more were left unread. For the filters the API does not have, which the
// page applies itself.
export async function readAll(path, cap, live = () => true) {
  const items = [];
  const sep = path.includes('?') ? '&' : '?';
  let cursor = '';
  do {
    const p = await call('GET', cursor ? `${path}${sep}cursor=${encodeURIComponent(cursor)}` : path);
    items.push(...p.items);
    cursor = p.next_cursor || '';
  } while (cursor && items.length < cap && live());
  return { items, more: !!cursor };
}
