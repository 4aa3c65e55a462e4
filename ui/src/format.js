// How values read on every page.
import { html } from 'htm/preact';

export const mb = (n) => (n >= 1024 ? `${+(n / 1024).toFixed(1)} GB` : `${n} MB`);
export const gb = (n) => `${n} GB`;
export const when = (t) => (t ? new Date(t).toLocaleString() : '');

// Status is a machine's or a task's status as a badge whose text says it (colour is
// never the only sign).
export const Status = ({ value }) => html`<span class=${`badge s-${value}`}>${value}</span>`;

// ProblemView shows an API error: its title and detail.
export const ProblemView = ({ error }) => error && html`<div class="problem" role="alert">
  <strong>${error.title || 'Error'}</strong>${error.detail ? html`<p>${error.detail}</p>` : ''}
</div>`;

// Field is a labelled input with its error from the API (a Problem's field errors)
// next to it, tied to it for screen readers.
// inputRef reaches the input itself.
export const Field = ({ name, label, error, inputRef, ...rest }) => {
  const msg = error?.fields?.[name];
  return html`<label class="field">
    <span>${label}</span>
    <input ref=${inputRef} name=${name} aria-invalid=${msg ? 'true' : undefined} aria-describedby=${msg ? `${name}-error` : undefined} ...${rest} />
    ${msg && html`<span class="field-error" id=${`${name}-error`}>${msg}</span>`}
  </label>`;
};

// bytes reads a size in bytes, binary units.
export function bytes(n) {
  if (n == null) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (Math.abs(n) >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(1) : n} ${units[i]}`;
}

// Section is a titled part of a page, named by its heading for screen readers.
export const Section = ({ id, title, children }) => html`<section class="card" aria-labelledby=${`${id}-title`}>
  <h2 id=${`${id}-title`}>${title}</h2>${children}</section>`;
