// The account page, for every signed-in user: the password, the logins (end one),
// the second factor (enrol with a QR code, recovery codes shown once, turn it off),
// and API keys (the secret shown once, revoke). A chunk of its own.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { call, logout, session } from '../api.js';
import { Field, ProblemView, Section, when } from '../format.js';
import { Confirm } from '../confirm.js';
import { lazy } from '../lazy.js';
import { go } from '../router.js';

const QR = lazy(() => import('../qr.js'), 'QR');

// useRun runs a call, keeping its problem for the form.
function useRun() {
  const [error, setError] = useState(null);
  const run = async (fn) => { setError(null); try { return await fn(); } catch (e) { setError(e); return undefined; } };
  return [error, run];
}

export function Account() {
  const [me, setMe] = useState(session.value.user);
  const [error, setError] = useState(null);
  const reload = () => call('GET', '/api/auth/me').then(setMe, setError);
  useEffect(() => { reload(); }, []);
  return html`<main id="main">
    <h1>Account</h1>
    <${ProblemView} error=${error} />
    <dl class="facts"><dt>E-mail</dt><dd>${me.email}</dd><dt>Name</dt><dd>${me.name}</dd><dt>Role</dt><dd>${me.role}</dd></dl>
    <${Password} />
    <${Sessions} />
    <${SecondFactor} me=${me} onChange=${reload} />
    <${APIKeys} admin=${me.role === 'admin'} />
  </main>`;
}

// Password changes the user's password; every other login ends, this one carries on
// with the new access token the answer holds (the cookie's refresh token stays good).
function Password() {
  const [error, run] = useRun();
  const [done, setDone] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setDone(false);
    const r = await run(() => call('POST', '/api/auth/password', { current_password: f.get('current_password'), new_password: f.get('new_password') }));
    if (r?.token) {
      session.value = { ...session.value, token: r.token };
      e.target.reset();
      setDone(true);
    }
  };
  return html`<${Section} id="password" title="Password">
    <form onSubmit=${submit} aria-label="Change password">
      <${ProblemView} error=${error} />
      <div class="grid">
        <${Field} name="current_password" label="Current password" error=${error} type="password" autocomplete="current-password" required />
        <${Field} name="new_password" label="New password" error=${error} type="password" autocomplete="new-password" required />
      </div>
      <button type="submit" class="primary">Change password</button>
      ${done && html`<p role="status">Password changed. Your other logins have ended.</p>`}
    </form>
  <//>`;
}

// Sessions lists the user's logins and ends one (this one signs out).
function Sessions() {
  const [page, setPage] = useState(null);
  const [error, run] = useRun();
  const load = () => run(() => call('GET', '/api/auth/sessions?limit=100').then(setPage));
  useEffect(() => { load(); }, []);
  const end = async (s) => {
    if (s.current) { await logout(); go('/login', true); return; }
    await run(() => call('DELETE', `/api/auth/sessions/${encodeURIComponent(s.id)}`));
    load();
  };
  return html`<${Section} id="sessions" title="Logins">
    <${ProblemView} error=${error} />
    ${page && html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your logins, newest first</caption>
      <thead><tr><th scope="col">Started</th><th scope="col">Last used</th><th scope="col">How</th><th scope="col">From</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((s) => html`<tr key=${s.id} data-session=${s.id}>
        <td>${when(s.created_at)}${s.current ? html` <span class="badge">this one</span>` : ''}</td><td>${when(s.last_used_at)}</td>
        <td>${s.method}</td><td>${s.client_address} <span class="muted">${s.user_agent}</span></td>
        <td><${Confirm} name="end-session" label=${s.current ? 'Sign out' : 'End'} yes="Yes, end it" question="End this login?" onYes=${() => end(s)} /></td>
      </tr>`)}</tbody></table></div>`}
  <//>`;
}

// SecondFactor enrols an authenticator app (QR code and secret, then a first code),
// shows the recovery codes once, and turns the second factor off with a code.
function SecondFactor({ me, onChange }) {
  const [error, run] = useRun();
  const [enrol, setEnrol] = useState(null);
  const [codes, setCodes] = useState(null);
  const start = async () => { const r = await run(() => call('POST', '/api/auth/totp')); if (r) setEnrol(r); };
  const confirm = async (e) => {
    e.preventDefault();
    const r = await run(() => call('POST', '/api/auth/totp/confirm', { code: new FormData(e.target).get('code') }));
    if (r) { setEnrol(null); setCodes(r.recovery_codes); onChange(); }
  };
  const disable = async (e) => {
    e.preventDefault();
    const r = await run(() => call('POST', '/api/auth/totp/disable', { code: new FormData(e.target).get('code') }).then(() => true));
    if (r) { e.target.reset(); onChange(); }
  };
  let body;
  if (codes) {
    body = html`<div role="status"><p><strong>Your recovery codes.</strong> Each signs you in once without the app. Keep them somewhere safe: they are shown only now.</p>
      <ul class="codes" data-recovery-codes>${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
      <button type="button" onClick=${() => setCodes(null)}>I have saved them</button></div>`;
  } else if (enrol) {
    body = html`<div class="enrol">
      <p>Scan this code with your authenticator app, or type the secret into it, then enter the code the app shows.</p>
      <${QR} text=${enrol.uri} label="QR code of the authenticator secret" />
      <p>Secret: <code data-totp-secret>${enrol.secret}</code></p>
      <form onSubmit=${confirm} aria-label="Confirm the authenticator">
        <${Field} name="code" label="Code from the app" error=${error} autocomplete="one-time-code" inputmode="numeric" required />
        <button type="submit" class="primary">Turn on</button> <button type="button" onClick=${() => setEnrol(null)}>Cancel</button>
      </form></div>`;
  } else if (me.totp_enabled) {
    body = html`<p>A second factor is <strong>on</strong>: signing in asks for a code of your app.</p>
      <form onSubmit=${disable} aria-label="Turn the second factor off">
        <${Field} name="code" label="A code of the app, or a recovery code" error=${error} autocomplete="one-time-code" required />
        <button type="submit">Turn off</button>
      </form>`;
  } else {
    body = html`<p>A second factor is <strong>off</strong>.</p><button type="button" class="primary" onClick=${start}>Set up an authenticator app</button>`;
  }
  return html`<${Section} id="totp" title="Second factor"><${ProblemView} error=${error} />${body}<//>`;
}

const tenantScopes = ['read', 'machines:write'];
const allScopes = ['read', 'machines:write', 'tenants:write', 'billing', 'admin'];

// APIKeys lists the user's keys, makes one (its secret shown once) and revokes one.
function APIKeys({ admin }) {
  const [page, setPage] = useState(null);
  const [error, run] = useRun();
  const [secret, setSecret] = useState(null);
  const load = () => run(() => call('GET', '/api/resources/api-keys?limit=200').then(setPage));
  useEffect(() => { load(); }, []);
  const create = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const body = { name: f.get('name'), scopes: f.getAll('scopes') };
    if (f.get('expires_at')) body.expires_at = new Date(`${f.get('expires_at')}T23:59:59`).toISOString();
    const cidrs = String(f.get('allowed_cidrs') || '').split(/[\s,]+/).filter(Boolean);
    if (cidrs.length) body.allowed_cidrs = cidrs;
    const r = await run(() => call('POST', '/api/resources/api-keys', body));
    if (r) { setSecret(r); e.target.reset(); load(); }
  };
  const scopeError = error?.fields?.scopes;
  return html`<${Section} id="keys" title="API keys">
    <${ProblemView} error=${error} />
    ${secret && html`<div class="card" role="status"><p>The secret of <strong>${secret.name}</strong>, shown only now: copy it.</p>
      <p><code data-key-secret>${secret.secret}</code></p><button type="button" onClick=${() => setSecret(null)}>Done</button></div>`}
    <form onSubmit=${create} aria-label="New API key">
      <div class="grid">
        <${Field} name="name" label="Name" error=${error} required />
        <${Field} name="expires_at" label="Expires (optional)" error=${error} type="date" />
        <${Field} name="allowed_cidrs" label="Allowed addresses (optional CIDRs)" error=${error} />
      </div>
      <fieldset class="scopes" aria-describedby=${scopeError ? 'scopes-error' : undefined}><legend>Scopes</legend>
        ${(admin ? allScopes : tenantScopes).map((s) => html`<label class="check"><input type="checkbox" name="scopes" value=${s} checked=${s === 'read'} /> ${s}</label>`)}
        ${scopeError && html`<span class="field-error" id="scopes-error">${scopeError}</span>`}
      </fieldset>
      <button type="submit" class="primary">Create key</button>
    </form>
    ${page && (page.items.length === 0 ? html`<p>No API keys.</p>` : html`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your API keys</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
      <tbody>${page.items.map((k) => html`<tr key=${k.id} data-key=${k.name}>
        <td>${k.name}</td><td>${k.scopes.join(', ')}</td><td>${when(k.created_at)}</td><td>${k.last_used_at ? when(k.last_used_at) : 'never'}</td>
        <td>${k.expires_at ? when(k.expires_at) : 'never'}</td>
        <td><${Confirm} name="revoke" label="Revoke" yes="Yes, revoke" question=${`Revoke ${k.name}? Programs using it stop working.`}
          onYes=${() => run(() => call('DELETE', `/api/resources/api-keys/${encodeURIComponent(k.id)}`)).then(load)} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`;
}
