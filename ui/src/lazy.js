// lazy makes a component of an export of a chunk loaded on first use: the heavy
// libraries (uPlot, xterm, the QR encoder) are fetched only by a page that shows them,
// never by the first load.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

export function lazy(load, name) {
  let mod = null, loading = null;
  return function Lazy(props) {
    const [, setLoaded] = useState(!!mod);
    const [error, setError] = useState(null);
    useEffect(() => {
      if (mod) return undefined;
      let live = true;
      loading ||= load().then((m) => { mod = m; });
      loading.then(() => live && setLoaded(true), (e) => { loading = null; if (live) setError(e); });
      return () => { live = false; };
    }, []);
    if (error) return html`<p class="field-error" role="alert">Could not load this part of the page: ${String(error.message || error)}</p>`;
    if (!mod) return html`<p aria-busy="true">Loading…</p>`;
    const C = mod[name];
    return html`<${C} ...${props} />`;
  };
}
