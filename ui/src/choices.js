// The lists a form picks from (templates, plans, ISO images), read once per page load:
// they change rarely, and a form that needs a fresh one is opened again.
import { useEffect, useState } from 'preact/hooks';
import { call } from './api.js';

const cache = {};

// useList answers the items of a list route (every page of it up to limit), or null
// while they load (or with no path); an error leaves an empty list and the error.
export function useList(path) {
  const [state, setState] = useState(cache[path] ? { items: cache[path] } : null);
  useEffect(() => {
    if (!path) return undefined;
    // A path given later (a form opened) whose list another page has read already.
    if (cache[path]) { setState((st) => (st?.items === cache[path] ? st : { items: cache[path] })); return undefined; }
    let live = true;
    call('GET', path).then((p) => { cache[path] = p.items || []; if (live) setState({ items: cache[path] }); },
      (e) => live && setState({ items: [], error: e }));
    return () => { live = false; };
  }, [path]);
  return state;
}

// forget drops a cached list, so the next form reads it again.
export function forget(path) { delete cache[path]; }

export const templatesPath = '/api/resources/templates?limit=500';
export const plansPath = '/api/resources/plans?limit=200';
export const tenantsPath = '/api/resources/tenants?limit=500';
export const isosPath = '/api/resources/isos?limit=200';
