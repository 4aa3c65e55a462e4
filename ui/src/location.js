// The locations (hypervisor clusters) forms pick from: read once per page load, as
// the other choices. Operators read theirs with the drivers' settings; a tenant user
// reads the client area's (id, name, default, available: nothing of the drivers).
import { html } from 'htm/preact';
import { useList } from './choices.js';

export const locationsPath = '/api/resources/locations?limit=200';
export const clientLocationsPath = '/api/client/locations?limit=200';

// useLocations answers the locations (the default one first) and, by id, their
// names; null items while they load, or none read (on = false). path is the
// operators' list unless a tenant's page names the client area's.
export function useLocations(on = true, path = locationsPath) {
  const list = useList(on ? path : null);
  const names = Object.fromEntries((list?.items || []).map((l) => [l.id, l.name]));
  return { list, items: list?.items || [], names };
}

// locationLabel is a location's option text: its name, the default marked, and one
// the hypervisor watch finds not answering (a tenant's list says so) marked too.
const locationLabel = (l) => `${l.name}${l.default ? ' (default)' : ''}${l.available === false ? ' (unavailable)' : ''}`;

// locationName is a location's name for a list's cell: its id when the list has not
// answered (or does not hold it), "default" for none.
export const locationName = (names, id) => names[id || 'default'] || id || 'default';

// inLocation answers whether a template belongs to the location id (a template names
// its location, and none for the default one): a create or a plan takes only its
// location's templates.
export const inLocation = (id) => (t) => (t.location || 'default') === (id || 'default');

// LocationSelect is a labelled select of the locations with the API's error for
// name next to it. none, when given, is the label of a first option of value ''
// (no location named: the plan's or the default one).
export function LocationSelect({ name = 'location_id', label = 'Location', items, error, none, value, onChange, defaultValue }) {
  const msg = error?.fields?.[name];
  return html`<label class="field"><span>${label}</span>
    <select name=${name} value=${value} onChange=${onChange}
      aria-invalid=${msg ? 'true' : undefined} aria-describedby=${msg ? `${name}-error` : undefined}>
      ${none && html`<option value="">${none}</option>`}
      ${items.map((l) => html`<option value=${l.id} selected=${value === undefined && defaultValue === l.id}>${locationLabel(l)}</option>`)}
    </select>${msg && html`<span class="field-error" id=${`${name}-error`}>${msg}</span>`}</label>`;
}

// useOwnLocations answers the locations for a page an operator (admin) or a tenant
// user sees: each reads the list its role may.
export const useOwnLocations = (admin) => useLocations(true, admin ? locationsPath : clientLocationsPath);
