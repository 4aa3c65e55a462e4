// The API as the console calls it: the access token in memory only, the refresh
// token in an HttpOnly cookie that only the browser routes (/api/auth/browser/...)
// see, problems as errors, and the event stream read with fetch so that the token
// travels in a header, never in a URL.
import { signal } from '@preact/signals';

// session is the signed-in login: { token, user, enrolTOTP }, or null.
export const session = signal(null);

// The header the browser routes want on every call: a page of another site cannot
// send it without a CORS preflight, which those routes never grant.
const csrf = { 'X-Vmplane-CSRF': '1' };

// Problem is an API error: its title, detail, code and field errors.
export class Problem extends Error {
  constructor(p, status) {
    super(p.detail || p.title || `HTTP ${status}`);
    this.status = status;
    this.title = p.title || `HTTP ${status}`;
    this.detail = p.detail || '';
    this.code = p.code || '';
    this.challenge = p.challenge;
    this.fields = {};
    for (const f of p.errors || []) this.fields[f.field] = f.message;
  }
}

async function answer(res) {
  if (res.status === 204) return null;
  const json = (res.headers.get('content-type') || '').includes('json');
  const body = json ? await res.json() : await res.text();
  if (!res.ok) throw new Problem(json ? body : { title: res.statusText, detail: body }, res.status);
  return body;
}

// browser calls one of the cookie routes; a token in the answer starts the session.
export async function browser(path, body) {
  const headers = { ...csrf };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`/api/auth/browser/${path}`, {
    method: 'POST', credentials: 'same-origin', headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const r = await answer(res);
  if (r && r.token) session.value = { token: r.token, user: r.user, enrolTOTP: !!r.totp_enrolment_required };
  return r;
}

let renewing = null;

// A sign-in that did not go through the console's own form (an OpenID Connect
// provider's callback page, a login link's page) leaves its login in this tab's
// sessionStorage under tabKey, as a token pair: that login has no cookie, so its
// refresh token stays there (this tab only, rotated at each renewal) and the access
// token in memory, as any other.
const tabKey = 'vmplane.session';
const tabLogin = () => { try { return JSON.parse(sessionStorage.getItem(tabKey)); } catch { return null; } };

async function renewTab(stored) {
  const res = await fetch('/api/auth/refresh', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ refresh_token: stored.refresh_token }) });
  let r;
  try { r = await answer(res); } catch (e) { if (e.status === 401) sessionStorage.removeItem(tabKey); throw e; }
  // The refresh's answer may leave the user out: the stored one stands.
  const user = r.user || stored.user;
  sessionStorage.setItem(tabKey, JSON.stringify({ ...r, user }));
  session.value = { token: r.token, user, enrolTOTP: !!r.totp_enrolment_required };
  return r;
}

// renew trades the cookie (or this tab's refresh token) for a new access token, once
// however many ask at once.
export function renew() {
  const stored = tabLogin();
  renewing ||= (stored?.refresh_token ? renewTab(stored) : browser('refresh')).finally(() => { renewing = null; });
  return renewing;
}

// logout ends the login (its refresh and access tokens) and forgets the cookie.
export async function logout() {
  const stored = tabLogin();
  try {
    if (stored?.refresh_token) await call('POST', '/api/auth/logout', { refresh_token: stored.refresh_token });
    else await call('POST', '/api/auth/browser/logout');
  } finally {
    sessionStorage.removeItem(tabKey);
    session.value = null;
  }
}

// call calls the API with the access token; an expired token is renewed once.
export async function call(method, path, body) {
  for (let retried = false; ; retried = true) {
    const s = session.value;
    const headers = { ...csrf };
    if (s) headers.Authorization = `Bearer ${s.token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status === 401 && s && !retried) {
      try { await renew(); continue; } catch { session.value = null; }
    }
    return answer(res);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// events reads GET /api/events for as long as the session lasts, calling on(type,
// data) for each event; after a dropped connection it resumes with Last-Event-ID, so
// nothing in between is missed. It answers a function that stops it.
//
// A page the browser keeps in its back-forward cache (left by a navigation, ready to
// come back at once) must not hold its stream: each stream is one of the six
// connections a browser opens to this server over HTTP/1.1, and five such pages left
// the next one waiting forever for a connection to fetch its code. So the stream ends
// at `pagehide` and resumes at `pageshow`, with Last-Event-ID.
export function events(on) {
  let last = '', retry = 2000, stopped = false, ctl = null, hidden = false, wake = null;
  const hide = () => { hidden = true; ctl?.abort(); };
  const show = () => { if (hidden) { hidden = false; wake?.(); } };
  addEventListener('pagehide', hide);
  addEventListener('pageshow', show);
  const dispatch = (block) => {
    let id, type = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const c = line.indexOf(':');
      const field = c < 0 ? line : line.slice(0, c);
      let v = c < 0 ? '' : line.slice(c + 1);
      if (v.startsWith(' ')) v = v.slice(1);
      if (field === 'id') id = v;
      else if (field === 'event') type = v;
      else if (field === 'data') data.push(v);
      else if (field === 'retry' && +v > 0) retry = +v;
    }
    if (id !== undefined) last = id;
    if (type === 'end') return 'end';
    if (data.length) {
      try { on(type, JSON.parse(data.join('\n'))); } catch (e) { console.error('event', type, e); }
    }
  };
  (async () => {
    while (!stopped && session.value) {
      if (hidden) {
        await new Promise((r) => { wake = r; });
        wake = null;
        continue;
      }
      ctl = new AbortController();
      try {
        const headers = { Authorization: `Bearer ${session.value.token}`, Accept: 'text/event-stream' };
        if (last) headers['Last-Event-ID'] = last;
        const res = await fetch('/api/events', { headers, signal: ctl.signal, cache: 'no-store' });
        if (res.status === 401) { await renew(); continue; }
        if (!res.ok) throw new Problem(await res.json().catch(() => ({})), res.status);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value.replace(/\r\n?/g, '\n');
          for (let i; (i = buf.indexOf('\n\n')) >= 0;) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (dispatch(block) === 'end') await renew();
          }
        }
      } catch (e) {
        if (stopped) return;
        if (hidden) continue;
        if (e instanceof Problem && e.status === 401) { session.value = null; return; }
      }
      if (!stopped && !hidden) await sleep(retry);
    }
  })();
  return () => {
    stopped = true;
    ctl?.abort();
    removeEventListener('pagehide', hide);
    removeEventListener('pageshow', show);
    wake?.();
  };
}
