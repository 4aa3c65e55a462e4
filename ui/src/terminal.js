// A machine's serial console in xterm.js: a lazy chunk, fetched when a console is
// opened. The page asks the API for a single-use ticket, then opens the websocket the
// ticket names on this origin (ws: or wss: as the page's own scheme); keys and pastes
// go to the machine as xterm reads them (held modifiers included), its output comes
// back as text or binary frames.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import css from '@xterm/xterm/css/xterm.css' with { type: 'text' };
import { call } from './api.js';
import { ProblemView } from './format.js';
import { adopt, mirror } from './sheet.js';

adopt(css);

// Console opens the serial console whose ticket route is url
// (.../machines/{id}/console or /api/virt/vms/{id}/console).
export function Console({ url }) {
  const box = useRef(null);
  const [state, setState] = useState('Connecting…');
  const [error, setError] = useState(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    const el = box.current;
    const cs = getComputedStyle(document.documentElement);
    const term = new Terminal({
      convertEol: false, cursorBlink: true, fontSize: 14, scrollback: 5000,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      screenReaderMode: false,
      theme: { background: cs.getPropertyValue('--term-bg').trim(), foreground: cs.getPropertyValue('--term-fg').trim() },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    const unmirror = mirror(el);
    fit.fit();
    const resize = new ResizeObserver(() => { try { fit.fit(); } catch { /* hidden */ } });
    resize.observe(el);
    let ws = null, closed = false;
    setError(null);
    setState('Connecting…');
    call('GET', url).then((t) => {
      if (closed) return;
      ws = new WebSocket(`${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${t.path}`);
      ws.binaryType = 'arraybuffer';
      ws.onopen = () => { setState('Connected'); term.focus(); };
      ws.onmessage = (e) => term.write(typeof e.data === 'string' ? e.data : new Uint8Array(e.data));
      ws.onclose = (e) => { if (!closed) setState(`Closed${e.reason ? `: ${e.reason}` : ''}`); };
      ws.onerror = () => setState('The connection failed');
    }, (e) => { setError(e); setState('No console'); });
    const input = term.onData((d) => ws?.readyState === WebSocket.OPEN && ws.send(d));
    return () => {
      closed = true;
      input.dispose();
      ws?.close();
      resize.disconnect();
      unmirror();
      term.dispose();
    };
  }, [url, round]);
  return html`<div class="console">
    <${ProblemView} error=${error} />
    <p class="muted"><span role="status" data-console-state>${state}</span>
      ${' '}<button type="button" onClick=${() => setRound(round + 1)}>Reconnect</button></p>
    <div ref=${box} class="term" aria-label="Serial console"></div>
  </div>`;
}
