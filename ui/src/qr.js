// QR shows a text (an otpauth:// URI) as a QR code drawn in SVG: uqr encodes it, this
// draws the modules as one path (no inline style, nothing fetched). A lazy chunk.
import { html } from 'htm/preact';
import { encode } from 'uqr';

export function QR({ text, label }) {
  const { size, data } = encode(text, { ecc: 'M', border: 4 });
  let d = '';
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) if (data[y][x]) d += `M${x} ${y}h1v1h-1z`;
  }
  return html`<svg class="qr" viewBox=${`0 0 ${size} ${size}`} role="img" aria-label=${label} shape-rendering="crispEdges">
    <rect width=${size} height=${size} fill="#fff" /><path d=${d} fill="#000" /></svg>`;
}
