// The sign-in page: e-mail and password, then the code of the second factor when the
// account has one; and a button for each OpenID Connect provider the server has (a
// link to its start route, which sends the browser to the provider and back to this
// page's path signed in). A forgotten password asks for a link by mail
// (POST /api/auth/password-reset); the link opens the server's own page that sets the
// new one.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { browser, call } from '../api.js';
import { Field, ProblemView } from '../format.js';

// Forgot asks for a password reset link by mail. The API answers alike whether the
// address has an account or not, so the page says so in the same words either way;
// a server with no mail set up refuses (403), shown with its detail.
function Forgot({ email, onBack }) {
  const [error, setError] = useState(null);
  const [sent, setSent] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const to = String(new FormData(e.target).get('email')).trim();
    setBusy(true);
    setError(null);
    try {
      await call('POST', '/api/auth/password-reset', { email: to });
      setSent(to);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return html`<form onSubmit=${submit} aria-labelledby="forgot-title">
    <h1 id="forgot-title">Reset your password</h1>
    <${ProblemView} error=${error} />
    <p role="status" data-reset-sent>${sent ? `If ${sent} has an account, a link to set a new password is on its way there; it works for 30 minutes.` : ''}</p>
    <p>Enter your account's e-mail address: a link to set a new password is mailed to it.</p>
    <${Field} name="email" label="E-mail" error=${error} type="email" autocomplete="username" required autofocus defaultValue=${email} />
    <button type="submit" disabled=${busy}>Send the link</button> <button type="button" class="quiet" onClick=${onBack}>Back to sign-in</button>
  </form>`;
}

export function Login() {
  const [error, setError] = useState(null);
  const [challenge, setChallenge] = useState(null);
  const [busy, setBusy] = useState(false);
  const [providers, setProviders] = useState([]);
  const [forgot, setForgot] = useState(null);
  useEffect(() => { call('GET', '/api/auth/oidc/providers').then((r) => setProviders(r.providers || []), () => {}); }, []);
  const back = encodeURIComponent(location.pathname === '/login' ? '/' : location.pathname + location.search);

  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setBusy(true);
    setError(null);
    try {
      if (challenge) await browser('login/totp', { challenge, code: f.get('code') });
      else await browser('login', { email: f.get('email'), password: f.get('password') });
    } catch (err) {
      if (err.code === 'totp_required' && err.challenge) setChallenge(err.challenge);
      else setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (forgot !== null) return html`<main id="main" class="login"><${Forgot} email=${forgot} onBack=${() => setForgot(null)} /></main>`;
  return html`<main id="main" class="login">
    <form onSubmit=${submit} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${ProblemView} error=${error} />
      ${challenge
        ? html`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${Field} key="code" name="code" label="Code" error=${error} autocomplete="one-time-code" inputmode="numeric" required autofocus />`
        : html`<${Field} key="email" name="email" label="E-mail" error=${error} type="email" autocomplete="username" required autofocus />
          <${Field} name="password" label="Password" error=${error} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${busy}>${challenge ? 'Verify' : 'Sign in'}</button>
      ${!challenge && html` <button type="button" class="quiet" data-forgot onClick=${(e) => setForgot(String(new FormData(e.target.form).get('email') || ''))}>Forgot your password?</button>`}
      ${!challenge && providers.length > 0 && html`<div class="sso" role="group" aria-label="Single sign-on">
        <p class="muted">Or sign in with</p>
        ${providers.map((p) => html`<a class="button" data-provider=${p.id} href=${`/api/auth/oidc/${encodeURIComponent(p.id)}/start?redirect_to=${back}`}>${p.name || p.id}</a>`)}
      </div>`}
    </form>
  </main>`;
}
