// The sign-in page: e-mail and password, then the code of the second factor when the
// account has one; and a button for each OpenID Connect provider the server has (a
// link to its start route, which sends the browser to the provider and back to this
// page's path signed in).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { browser, call } from '../api.js';
import { Field, ProblemView } from '../format.js';

export function Login() {
  const [error, setError] = useState(null);
  const [challenge, setChallenge] = useState(null);
  const [busy, setBusy] = useState(false);
  const [providers, setProviders] = useState([]);
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
      ${!challenge && providers.length > 0 && html`<div class="sso" role="group" aria-label="Single sign-on">
        <p class="muted">Or sign in with</p>
        ${providers.map((p) => html`<a class="button" data-provider=${p.id} href=${`/api/auth/oidc/${encodeURIComponent(p.id)}/start?redirect_to=${back}`}>${p.name || p.id}</a>`)}
      </div>`}
    </form>
  </main>`;
}
