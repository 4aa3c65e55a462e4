// Inline SVG icons (no font, nothing fetched): each is decorative, named by the text
// beside it, so screen readers skip it.
import { html } from 'htm/preact';

const icon = (d) => () => html`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${d} /></svg>`;

export const Server = icon('M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01');
// Bell (webhooks), Archive (backups) and Disc (ISO images).
export const Bell = icon('M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0');
export const Archive = icon('M3 4h18v4H3zM5 8v12h14V8M10 12h4');
export const Disc = icon('M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z');
export const Nodes = icon('M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3');
export const Play = icon('M7 4l13 8-13 8z');
export const Stop = icon('M6 6h12v12H6z');
export const Reboot = icon('M20 12a8 8 0 1 1-3-6.2M20 4v5h-5');
export const Out = icon('M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10');
export const User = icon('M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0');
export const Gauge = icon('M4 18a8 8 0 1 1 16 0M12 18l4-6');
export const Shield = icon('M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z');
export const Clock = icon('M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2');
export const Users = icon('M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7');
export const Box = icon('M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10');
export const Pulse = icon('M3 12h4l3-7 4 14 3-7h4');
export const List = icon('M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01');
export const Network = icon('M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z');
export const Pin = icon('M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z');
// Down (a nav group's menu, beside its name).
export const Down = icon('M6 9l6 6 6-6');
// Check (the operators' tasks).
export const Check = icon('M4 12l5 5L20 6');
