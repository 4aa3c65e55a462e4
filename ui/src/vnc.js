// A machine's graphical console in noVNC: a lazy chunk, fetched when the VNC part of a
// machine's page is opened (noVNC is an ES module with a top-level await, which is why
// the console ships ES modules). The page asks the API for a single-use ticket of type
// vnc, then opens the websocket it names on this origin; the server offers the browser
// RFB security None (it speaks to the hypervisor with its own credentials). Keys go to
// the machine while the screen has the focus; Ctrl+Alt+Del and the clipboard, which the
// browser keeps for itself, have controls of their own.
//
// noVNC sets styles only through the CSSOM (element.style), which the
// Content-Security-Policy allows; it writes no <style> element and evaluates no code.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import RFB from '@novnc/novnc';
import { call } from './api.js';
import { ProblemView } from './format.js';

// VNC opens the graphical console whose ticket route is url
// (.../machines/{id}/console or /api/virt/vms/{id}/console).
export function VNC({ url }) {
  const box = useRef(null);
  const rfb = useRef(null);
  const [state, setState] = useState('Connecting…');
  const [connected, setConnected] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  const [round, setRound] = useState(0);
  const [clip, setClip] = useState('');
  const [sent, setSent] = useState('');
  useEffect(() => {
    let closed = false;
    setError(null);
    setConnected(false);
    setState('Connecting…');
    call('GET', `${url}?type=vnc`).then((t) => {
      if (closed) return;
      const r = new RFB(box.current, `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${t.path}`,
        { wsProtocols: ['binary'], shared: true });
      r.scaleViewport = true;
      r.background = 'transparent';
      r.addEventListener('connect', () => { setConnected(true); setState('Connected'); r.focus(); });
      r.addEventListener('disconnect', (e) => {
        setConnected(false);
        if (!closed) setState(e.detail.clean ? 'Closed' : 'The connection failed');
      });
      r.addEventListener('securityfailure', (e) => setState(`Refused: ${e.detail.reason || e.detail.status}`));
      r.addEventListener('desktopname', (e) => setName(e.detail.name));
      r.addEventListener('clipboard', (e) => setClip(e.detail.text));
      rfb.current = r;
    }, (e) => { setError(e); setState('No graphical console'); });
    return () => {
      closed = true;
      rfb.current?.disconnect();
      rfb.current = null;
    };
  }, [url, round]);
  const paste = (e) => {
    e.preventDefault();
    rfb.current?.clipboardPasteFrom(clip);
    setSent(clip ? `Sent ${clip.length} characters to the machine's clipboard.` : '');
  };
  return html`<div class="vnc">
    <${ProblemView} error=${error} />
    <p class="muted"><span role="status" data-vnc-state>${state}</span>${name ? html` · <span data-vnc-name>${name}</span>` : ''}
      ${' '}<button type="button" onClick=${() => setRound(round + 1)}>Reconnect</button>
      ${' '}<button type="button" data-vnc-cad disabled=${!connected} onClick=${() => { rfb.current?.sendCtrlAltDel(); rfb.current?.focus(); }}>Send Ctrl+Alt+Del</button></p>
    <div ref=${box} class="screen" role="application" aria-roledescription="remote screen"
      aria-label="Graphical console: keys typed here go to the machine"></div>
    <form class="inline-form" onSubmit=${paste} aria-label="Clipboard">
      <label class="field"><span>Clipboard (sent to the machine; its copies show here)</span>
        <textarea name="clipboard" rows="2" value=${clip} onInput=${(e) => setClip(e.target.value)}></textarea></label>
      <button type="submit" disabled=${!connected}>Paste to the machine</button>
      <span class="muted" aria-live="polite">${sent}</span>
    </form>
  </div>`;
}
