import{a as T}from"./chunk-AX76OU66.js";import{b as P}from"./chunk-YQSPOLJD.js";import{a as E}from"./chunk-HOYY2OMK.js";import{a as u,b as g,g as v,k as C,l as p,p as f,r as b,s as $,u as w}from"./chunk-E4PU34WH.js";import{g as o}from"./chunk-XGWGEZEQ.js";var A=T(()=>import("./qr-X2UZE3TP.js"),"QR");function S(){let[s,n]=u(null);return[s,async r=>{n(null);try{return await r()}catch(a){n(a);return}}]}function U(){let[s,n]=u(v.value.user),[d,r]=u(null),a=()=>p("GET","/api/auth/me").then(n,r);return g(()=>{a()},[]),o`<main id="main">
    <h1>Account</h1>
    <${b} error=${d} />
    <dl class="facts"><dt>E-mail</dt><dd>${s.email}</dd><dt>Name</dt><dd>${s.name}</dd><dt>Role</dt><dd>${s.role}</dd></dl>
    <${D} />
    <${x} />
    <${I} me=${s} onChange=${a} />
    <${q} admin=${s.role==="admin"} />
  </main>`}function D(){let[s,n]=S(),[d,r]=u(!1);return o`<${w} id="password" title="Password">
    <form onSubmit=${async i=>{i.preventDefault();let e=new FormData(i.target);r(!1);let m=await n(()=>p("POST","/api/auth/password",{current_password:e.get("current_password"),new_password:e.get("new_password")}));m?.token&&(v.value={...v.value,token:m.token},i.target.reset(),r(!0))}} aria-label="Change password">
      <${b} error=${s} />
      <div class="grid">
        <${$} name="current_password" label="Current password" error=${s} type="password" autocomplete="current-password" required />
        <${$} name="new_password" label="New password" error=${s} type="password" autocomplete="new-password" required />
      </div>
      <button type="submit" class="primary">Change password</button>
      ${d&&o`<p role="status">Password changed. Your other logins have ended.</p>`}
    </form>
  <//>`}function x(){let[s,n]=u(null),[d,r]=S(),a=()=>r(()=>p("GET","/api/auth/sessions?limit=100").then(n));g(()=>{a()},[]);let i=async e=>{if(e.current){await C(),P("/login",!0);return}await r(()=>p("DELETE",`/api/auth/sessions/${encodeURIComponent(e.id)}`)),a()};return o`<${w} id="sessions" title="Logins">
    <${b} error=${d} />
    ${s&&o`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your logins, newest first</caption>
      <thead><tr><th scope="col">Started</th><th scope="col">Last used</th><th scope="col">How</th><th scope="col">From</th><th scope="col">Actions</th></tr></thead>
      <tbody>${s.items.map(e=>o`<tr key=${e.id} data-session=${e.id}>
        <td>${f(e.created_at)}${e.current?o` <span class="badge">this one</span>`:""}</td><td>${f(e.last_used_at)}</td>
        <td>${e.method}</td><td>${e.client_address} <span class="muted">${e.user_agent}</span></td>
        <td><${E} name="end-session" label=${e.current?"Sign out":"End"} yes="Yes, end it" question="End this login?" onYes=${()=>i(e)} /></td>
      </tr>`)}</tbody></table></div>`}
  <//>`}function I({me:s,onChange:n}){let[d,r]=S(),[a,i]=u(null),[e,m]=u(null),_=async()=>{let c=await r(()=>p("POST","/api/auth/totp"));c&&i(c)},y=async c=>{c.preventDefault();let h=await r(()=>p("POST","/api/auth/totp/confirm",{code:new FormData(c.target).get("code")}));h&&(i(null),m(h.recovery_codes),n())},t=async c=>{c.preventDefault(),await r(()=>p("POST","/api/auth/totp/disable",{code:new FormData(c.target).get("code")}).then(()=>!0))&&(c.target.reset(),n())},l;return e?l=o`<div role="status"><p><strong>Your recovery codes.</strong> Each signs you in once without the app. Keep them somewhere safe: they are shown only now.</p>
      <ul class="codes" data-recovery-codes>${e.map(c=>o`<li><code>${c}</code></li>`)}</ul>
      <button type="button" onClick=${()=>m(null)}>I have saved them</button></div>`:a?l=o`<div class="enrol">
      <p>Scan this code with your authenticator app, or type the secret into it, then enter the code the app shows.</p>
      <${A} text=${a.uri} label="QR code of the authenticator secret" />
      <p>Secret: <code data-totp-secret>${a.secret}</code></p>
      <form onSubmit=${y} aria-label="Confirm the authenticator">
        <${$} name="code" label="Code from the app" error=${d} autocomplete="one-time-code" inputmode="numeric" required />
        <button type="submit" class="primary">Turn on</button> <button type="button" onClick=${()=>i(null)}>Cancel</button>
      </form></div>`:s.totp_enabled?l=o`<p>A second factor is <strong>on</strong>: signing in asks for a code of your app.</p>
      <form onSubmit=${t} aria-label="Turn the second factor off">
        <${$} name="code" label="A code of the app, or a recovery code" error=${d} autocomplete="one-time-code" required />
        <button type="submit">Turn off</button>
      </form>`:l=o`<p>A second factor is <strong>off</strong>.</p><button type="button" class="primary" onClick=${_}>Set up an authenticator app</button>`,o`<${w} id="totp" title="Second factor"><${b} error=${d} />${l}<//>`}var R=["read","machines:write"],Y=["read","machines:write","tenants:write","billing","admin"];function q({admin:s}){let[n,d]=u(null),[r,a]=S(),[i,e]=u(null),m=()=>a(()=>p("GET","/api/resources/api-keys?limit=200").then(d));g(()=>{m()},[]);let _=async t=>{t.preventDefault();let l=new FormData(t.target),c={name:l.get("name"),scopes:l.getAll("scopes")};l.get("expires_at")&&(c.expires_at=new Date(`${l.get("expires_at")}T23:59:59`).toISOString());let h=String(l.get("allowed_cidrs")||"").split(/[\s,]+/).filter(Boolean);h.length&&(c.allowed_cidrs=h);let k=await a(()=>p("POST","/api/resources/api-keys",c));k&&(e(k),t.target.reset(),m())},y=r?.fields?.scopes;return o`<${w} id="keys" title="API keys">
    <${b} error=${r} />
    ${i&&o`<div class="card" role="status"><p>The secret of <strong>${i.name}</strong>, shown only now: copy it.</p>
      <p><code data-key-secret>${i.secret}</code></p><button type="button" onClick=${()=>e(null)}>Done</button></div>`}
    <form onSubmit=${_} aria-label="New API key">
      <div class="grid">
        <${$} name="name" label="Name" error=${r} required />
        <${$} name="expires_at" label="Expires (optional)" error=${r} type="date" />
        <${$} name="allowed_cidrs" label="Allowed addresses (optional CIDRs)" error=${r} />
      </div>
      <fieldset class="scopes" aria-describedby=${y?"scopes-error":void 0}><legend>Scopes</legend>
        ${(s?Y:R).map(t=>o`<label class="check"><input type="checkbox" name="scopes" value=${t} checked=${t==="read"} /> ${t}</label>`)}
        ${y&&o`<span class="field-error" id="scopes-error">${y}</span>`}
      </fieldset>
      <button type="submit" class="primary">Create key</button>
    </form>
    ${n&&(n.items.length===0?o`<p>No API keys.</p>`:o`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your API keys</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
      <tbody>${n.items.map(t=>o`<tr key=${t.id} data-key=${t.name}>
        <td>${t.name}</td><td>${t.scopes.join(", ")}</td><td>${f(t.created_at)}</td><td>${t.last_used_at?f(t.last_used_at):"never"}</td>
        <td>${t.expires_at?f(t.expires_at):"never"}</td>
        <td><${E} name="revoke" label="Revoke" yes="Yes, revoke" question=${`Revoke ${t.name}? Programs using it stop working.`}
          onYes=${()=>a(()=>p("DELETE",`/api/resources/api-keys/${encodeURIComponent(t.id)}`)).then(m)} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}export{U as Account};
