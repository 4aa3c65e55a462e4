// Confirm is a button whose action asks once more before it runs, in place (no modal
// to trap focus in): the question takes the button's place with its two answers, the
// first focused, and Escape or Cancel brings the button back.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export function Confirm({ label, question, yes, onYes, disabled, name }) {
  const [asking, setAsking] = useState(false);
  const yesRef = useRef(null);
  const backRef = useRef(null);
  const was = useRef(false);
  useEffect(() => {
    if (asking) yesRef.current?.focus();
    else if (was.current) backRef.current?.focus();
    was.current = asking;
  }, [asking]);
  if (!asking) {
    return html`<button type="button" ref=${backRef} disabled=${disabled} data-confirm=${name} onClick=${() => setAsking(true)}>${label}</button>`;
  }
  return html`<span class="confirm" role="group" aria-label=${question} onKeyDown=${(e) => e.key === 'Escape' && setAsking(false)}>
    <span>${question}</span>
    <button type="button" class="danger" ref=${yesRef} data-confirm-yes=${name} onClick=${() => { setAsking(false); onYes(); }}>${yes}</button>
    <button type="button" onClick=${() => setAsking(false)}>Cancel</button>
  </span>`;
}
