// Client-side routes on the History API: the server answers index.html for every
// path outside /api, so a reload or a shared link opens the same page.
import { signal } from '@preact/signals';

// path is the page's path and query.
export const path = signal(location.pathname + location.search);

// go opens a page without a reload; a page that only changes its own query (a
// filter kept in the URL, so that a reload keeps it) passes keep to stay where the
// reader has scrolled.
export function go(to, replace = false, keep = false) {
  history[replace ? 'replaceState' : 'pushState'](null, '', to);
  path.value = to;
  if (!keep) window.scrollTo(0, 0);
}

addEventListener('popstate', () => { path.value = location.pathname + location.search; });

// A click on a link of this origin opens its page in place (a modified click still
// opens a new tab). A download link is left to the browser: a blob: URL's origin is
// this page's, and opening its path in place would lose the download.
addEventListener('click', (e) => {
  const a = e.target.closest?.('a[href]');
  if (!a || a.origin !== location.origin || a.target || a.hasAttribute('download') || e.defaultPrevented || e.button !== 0 ||
    e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.pathname.startsWith('/api/')) return;
  e.preventDefault();
  go(a.pathname + a.search);
});

// match tests path against a pattern such as /machines/:id and answers its parameters.
export function match(pattern, p) {
  const want = pattern.split('/'), got = p.split('?')[0].split('/');
  if (want.length !== got.length) return null;
  const params = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return null;
  }
  return params;
}
