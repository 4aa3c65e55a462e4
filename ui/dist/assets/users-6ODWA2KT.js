import{a as q,c as x,d as P}from"./chunk-TBCE6UEU.js";import{a as D,e as N}from"./chunk-PBPSO6V7.js";import{a as S}from"./chunk-HOYY2OMK.js";import{a as f,b as k,c as E,l as w,p as T,r as _,s as h}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var L="/api/resources/users",C=e=>`${L}/${encodeURIComponent(e.id)}`,A=1e4,j=(e,r)=>(!r.email||e.email.toLowerCase().includes(r.email.toLowerCase()))&&(!r.name||e.name.toLowerCase().includes(r.name.toLowerCase()))&&(!r.role||e.role===r.role);function O(e,r){let s=new URLSearchParams({limit:String(r)});return e.tenant_id&&s.set("tenant_id",e.tenant_id),e.external_id&&s.set("external_id",e.external_id),`${L}?${s}`}function V(e,r){let[s,d]=f(null),a=!!(e.email||e.name||e.role);return k(()=>{if(d(null),!a)return;let c=!0;return P(O(e,500),A,()=>c).then(({items:t,more:b})=>c&&d({items:t.filter(i=>j(i,e)),read:t.length,more:b}),t=>c&&d({items:[],error:t})),()=>{c=!1}},[e,r]),s}var F={email:"",name:"",role:"",tenant_id:"",external_id:""};function X(){let[e,r]=f(F),{page:s,error:d,reload:a,pager:c}=q(O(e,50)),[t,b]=f(0),i=V(e,t),m=D(N),u=Object.fromEntries((m?.items||[]).map(l=>[l.id,l.name])),[o,$]=f(null),p=!!(e.email||e.name||e.role),g=p?i?.items:s?.items,y=()=>{a(),b(l=>l+1)},v=l=>{l.preventDefault();let U=new FormData(l.target);r(Object.fromEntries(Object.keys(F).map(R=>[R,String(U.get(R)||"").trim()])))};return n`<main id="main">
    <h1>Users</h1>
    <${K} tenants=${m?.items||[]} onAdded=${y} />
    <form class="filters" role="search" aria-label="Filter accounts" onSubmit=${v}>
      <label class="field"><span>E-mail contains</span><input name="email" /></label>
      <label class="field"><span>Name contains</span><input name="name" /></label>
      <label class="field"><span>Role</span><select name="role"><option value="">any</option><option value="admin">operator (admin)</option><option value="user">tenant user</option></select></label>
      <label class="field"><span>Tenant</span><select name="tenant_id"><option value="">any</option>
        ${(m?.items||[]).map(l=>n`<option value=${l.id}>${l.name}</option>`)}</select></label>
      <label class="field"><span>External id</span><input name="external_id" /></label>
      <button type="submit">Filter</button>
    </form>
    <${_} error=${d||i?.error} />
    ${p&&i&&!i.error&&n`<p role="status" data-matches>${i.items.length} of ${i.read} accounts match${i.more?` (only the first ${i.read} were read)`:""}.</p>`}
    ${g&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Accounts</caption>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Tenant</th>
        <th scope="col">Second factor</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
      <tbody>${g.map(l=>n`<${Y} key=${l.id} u=${l} tenant=${u[l.tenant_id]||l.tenant_id||""}
        editing=${o===l.id} onEdit=${()=>$(o===l.id?null:l.id)} onChanged=${()=>{$(null),y()}}
        tenants=${m?.items||[]} />`)}</tbody>
    </table></div>
    ${g.length===0&&n`<p>No account${p||e.tenant_id||e.external_id?" matches":" yet"}.</p>`}
    ${!p&&c}`}
  </main>`}function Y({u:e,tenant:r,editing:s,onEdit:d,onChanged:a,tenants:c}){let[t,b]=x(),[i,m]=f(null),u=async p=>{await b(p)&&a()},o=async()=>{m(null),await b(async()=>m(await w("POST",`${C(e)}/login-links`)))},$=s||t||i;return n`<tr data-account=${e.email}><td>${e.email}</td><td>${e.name}</td>
      <td data-role>${e.role==="admin"?"operator":"tenant user"}</td><td>${r}</td>
      <td data-totp>${e.totp_enabled?"on":"off"}</td><td data-account-state>${e.disabled?"disabled":"enabled"}</td>
      <td class="row-actions">
        <button type="button" data-edit aria-expanded=${s?"true":"false"} onClick=${d}>Edit</button>
        ${e.totp_enabled&&n`<${S} name="totp-off" label="Turn second factor off" yes="Yes, turn it off"
          question=${`Turn ${e.email}'s second factor off? Every login of theirs ends.`} onYes=${()=>u(()=>w("DELETE",`${C(e)}/totp`))} />`}
        ${e.role==="user"&&n`<button type="button" data-login-link onClick=${o}>Login link</button>`}
        <${S} name="delete-account" label="Delete" yes="Yes, delete" question=${`Delete ${e.email}?`} onYes=${()=>u(()=>w("DELETE",C(e)))} />
      </td></tr>
    ${$&&n`<tr class="edit-row" data-account-more=${e.email}><td colspan="7">
      <${_} error=${!s&&t} />
      ${i&&n`<${I} link=${i} onClose=${()=>m(null)} />`}
      ${s&&n`<${H} u=${e} tenants=${c} onSaved=${a} onCancel=${d} />`}
    </td></tr>`}`}function I({link:e,onClose:r}){let s=e.url||`${location.origin}/login-link?token=${encodeURIComponent(e.token)}`,[d,a]=f(""),c=E(null);k(()=>{c.current?.focus(),c.current?.select()},[s]);let t=async()=>{try{await navigator.clipboard.writeText(s),a("Copied.")}catch{c.current?.select(),a("Select the link and copy it: the browser refused the clipboard.")}};return n`<div data-link>
    <label class="field"><span>Login link (works once, until ${T(e.expires_at)})</span>
      <input ref=${c} readonly value=${s} data-link-url spellcheck="false" /></label>
    ${!e.url&&n`<p class="muted">The server has no public URL, so the link is made from this page's address.</p>`}
    <button type="button" onClick=${t}>Copy</button> <button type="button" onClick=${r}>Close</button>
    <span role="status">${d}</span>
  </div>`}function H({u:e,tenants:r,onSaved:s,onCancel:d}){let[a,c]=x(),[t,b]=f(e.role),i=E(null);k(()=>{i.current?.focus()},[]);let m=async o=>{o.preventDefault();let $=new FormData(o.target),p={},g=String($.get("name")).trim();g!==e.name&&(p.name=g),t!==e.role&&(p.role=t);let y=$.get("tenant_id");t==="user"&&y&&(y!==e.tenant_id||t!==e.role)&&(p.tenant_id=y);let v=$.get("disabled")==="on";v!==e.disabled&&(p.disabled=v),$.get("password")&&(p.password=$.get("password"));let l=String($.get("external_id")).trim();if(l!==(e.external_id||"")&&(p.external_id=l||null),Object.keys(p).length===0){d();return}await c(()=>w("PATCH",C(e),p))&&s()},u=o=>a?.fields?.[o]&&n`<span class="field-error">${a.fields[o]}</span>`;return n`<form onSubmit=${m} aria-label=${`Edit ${e.email}`} onKeyDown=${o=>o.key==="Escape"&&d()}>
    <${_} error=${a} />
    <div class="grid">
      <${h} name="name" label="Name" error=${a} defaultValue=${e.name} inputRef=${i} required maxlength="100" />
      <label class="field"><span>Role</span><select name="role" value=${t} onChange=${o=>b(o.target.value)}
        aria-invalid=${a?.fields?.role?"true":void 0}>
        <option value="admin">operator (admin)</option><option value="user">tenant user</option></select>${u("role")}</label>
      ${t==="user"&&n`<label class="field"><span>Tenant</span><select name="tenant_id" required
        aria-invalid=${a?.fields?.tenant_id?"true":void 0}>
        ${!e.tenant_id&&n`<option value="">choose one</option>`}
        ${r.map(o=>n`<option value=${o.id} selected=${o.id===e.tenant_id}>${o.name}</option>`)}</select>${u("tenant_id")}</label>`}
      <${h} name="password" label="New password (blank: unchanged)" error=${a} type="password" autocomplete="new-password" minlength="8" maxlength="72" />
      <${h} name="external_id" label="External id (blank: none)" error=${a} defaultValue=${e.external_id||""} maxlength="128" />
    </div>
    <label class="check"><input type="checkbox" name="disabled" defaultChecked=${e.disabled} /> Disabled (every login ends)</label>
    <p class="muted">A new password, role, tenant or disabling ends every login of the account.</p>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${d}>Cancel</button>
  </form>`}function K({tenants:e,onAdded:r}){let[s,d]=f(!1),[a,c]=f("user"),[t,b]=x(),i=async m=>{m.preventDefault();let u=new FormData(m.target),o={email:String(u.get("email")).trim(),name:String(u.get("name")).trim(),password:u.get("password"),role:a};a==="user"&&(o.tenant_id=u.get("tenant_id")),String(u.get("external_id")).trim()&&(o.external_id=String(u.get("external_id")).trim()),await b(()=>w("POST",L,o))&&(d(!1),r())};return s?n`<form class="card" onSubmit=${i} aria-label="New account">
    <${_} error=${t} />
    <fieldset><legend>Role</legend>
      <label class="choice"><input type="radio" name="role" value="user" checked=${a==="user"} onChange=${()=>c("user")} /> Tenant user</label>
      <label class="choice"><input type="radio" name="role" value="admin" checked=${a==="admin"} onChange=${()=>c("admin")} /> Operator (admin)</label>
    </fieldset>
    <div class="grid">
      <${h} name="email" label="E-mail" error=${t} type="email" required autocomplete="off" />
      <${h} name="name" label="Name" error=${t} required maxlength="100" />
      <${h} name="password" label="Password" error=${t} type="password" required autocomplete="new-password" minlength="8" maxlength="72" />
      ${a==="user"&&n`<label class="field"><span>Tenant</span><select name="tenant_id" required
        aria-invalid=${t?.fields?.tenant_id?"true":void 0}>
        ${e.map(m=>n`<option value=${m.id}>${m.name}</option>`)}</select>
        ${t?.fields?.tenant_id&&n`<span class="field-error">${t.fields.tenant_id}</span>`}</label>`}
      <${h} name="external_id" label="External id (optional)" error=${t} maxlength="128" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`:n`<button class="primary" onClick=${()=>d(!0)}>New account</button>`}export{X as Users};
