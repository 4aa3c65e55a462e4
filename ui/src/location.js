// The locations (hypervisor clusters) forms pick from: read once per page load, as
// the other choices, by operators alone (the list is an operator's route).
import { html } from 'htm/preact';
import { useList } from './choices.js';

export const locationsPath = '/api/resources/locations?limit=200';

// useLocations answers the locations (the default one first) and, by id, their
// names; null items while they load, or for a tenant user (on = false).
export function useLocations(on = true) {
  const list = useList(on ? locationsPath : null);
  const names = Object.fromEntries((list?.items || []).map((l) => [l.id, l.name]));
  return { list, items: list?.items || [], names };
}

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
      ${items.map((l) => html`<option value=${l.id} selected=${value === undefined && defaultValue === l.id}>${l.name}${l.default ? ' (default)' : ''}</option>`)}
    </select>${msg && html`<span class="field-error" id=${`${name}-error`}>${msg}</span>`}</label>`;
}
