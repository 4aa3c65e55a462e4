import{a as N,c as k,d as q,e as P}from"./chunk-MTL65ZAK.js";import{a as D,e as F}from"./chunk-PBPSO6V7.js";import{a as E}from"./chunk-HOYY2OMK.js";import{a as f,b as C,c as R,l as w,p as T,r as _,s as h}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var S="/api/resources/users",x=e=>`${S}/${encodeURIComponent(e.id)}`,j=1e4,V=(e,r)=>(!r.email||e.email.toLowerCase().includes(r.email.toLowerCase()))&&(!r.name||e.name.toLowerCase().includes(r.name.toLowerCase()))&&(!r.role||e.role===r.role);function U(e,r){let s=new URLSearchParams({limit:String(r)});return e.tenant_id&&s.set("tenant_id",e.tenant_id),e.external_id&&s.set("external_id",e.external_id),`${S}?${s}`}function Y(e,r){let[s,i]=f(null),a=!!(e.email||e.name||e.role);return C(()=>{if(i(null),!a)return;let d=!0;return P(U(e,500),j,()=>d).then(({items:t,more:b})=>d&&i({items:t.filter(c=>V(c,e)),read:t.length,more:b}),t=>d&&i({items:[],error:t})),()=>{d=!1}},[e,r]),s}var O={email:"",name:"",role:"",tenant_id:"",external_id:""};function Z(){let[e,r]=f(O),{page:s,error:i,reload:a,pager:d}=N(U(e,50)),[t,b]=f(0),c=Y(e,t),m=D(F),u=Object.fromEntries((m?.items||[]).map(l=>[l.id,l.name])),[o,$]=f(null),p=!!(e.email||e.name||e.role),g=p?c?.items:s?.items,y=()=>{a(),b(l=>l+1)},v=l=>{l.preventDefault();let A=new FormData(l.target);r(Object.fromEntries(Object.keys(O).map(L=>[L,String(A.get(L)||"").trim()])))};return n`<main id="main">
    <h1>Users</h1>
    <${Q} tenants=${m?.items||[]} onAdded=${y} />
    <form class="filters" role="search" aria-label="Filter accounts" onSubmit=${v}>
      <label class="field"><span>E-mail contains</span><input name="email" /></label>
      <label class="field"><span>Name contains</span><input name="name" /></label>
      <label class="field"><span>Role</span><select name="role"><option value="">any</option><option value="admin">operator (admin)</option><option value="user">tenant user</option></select></label>
      <label class="field"><span>Tenant</span><select name="tenant_id"><option value="">any</option>
        ${(m?.items||[]).map(l=>n`<option value=${l.id}>${l.name}</option>`)}</select></label>
      <label class="field"><span>External id</span><input name="external_id" /></label>
      <button type="submit">Filter</button>
    </form>
    <${_} error=${i||c?.error} />
    ${p&&c&&!c.error&&n`<p role="status" data-matches>${c.items.length} of ${c.read} accounts match${c.more?` (only the first ${c.read} were read)`:""}.</p>`}
    ${g&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Accounts</caption>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Tenant</th>
        <th scope="col">Second factor</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
      <tbody>${g.map(l=>n`<${I} key=${l.id} u=${l} tenant=${u[l.tenant_id]||l.tenant_id||""}
        editing=${o===l.id} onEdit=${()=>$(o===l.id?null:l.id)} onChanged=${()=>{$(null),y()}}
        tenants=${m?.items||[]} />`)}</tbody>
    </table></div>
    ${g.length===0&&n`<p>No account${p||e.tenant_id||e.external_id?" matches":" yet"}.</p>`}
    ${!p&&d}`}
  </main>`}function I({u:e,tenant:r,editing:s,onEdit:i,onChanged:a,tenants:d}){let[t,b]=k(),[c,m]=f(null),u=async p=>{await b(p)&&a()},o=async()=>{m(null),await b(async()=>m(await w("POST",`${x(e)}/login-links`)))},$=s||t||c;return n`<tr data-account=${e.email}><td>${e.email}</td><td>${e.name}</td>
      <td data-role>${e.role==="admin"?"operator":"tenant user"}</td><td>${r}</td>
      <td data-totp>${e.totp_enabled?"on":"off"}</td><td data-account-state>${e.disabled?"disabled":"enabled"}</td>
      <td class="row-actions">
        <button type="button" data-edit aria-expanded=${s?"true":"false"} onClick=${i}>Edit</button>
        ${e.totp_enabled&&n`<${E} name="totp-off" label="Turn second factor off" yes="Yes, turn it off"
          question=${`Turn ${e.email}'s second factor off? Every login of theirs ends.`} onYes=${()=>u(()=>w("DELETE",`${x(e)}/totp`))} />`}
        ${e.role==="user"&&n`<button type="button" data-login-link onClick=${o}>Login link</button>`}
        <${E} name="delete-account" label="Delete" yes="Yes, delete" question=${`Delete ${e.email}?`} onYes=${()=>u(()=>w("DELETE",x(e)))} />
      </td></tr>
    ${$&&n`<tr class="edit-row" data-account-more=${e.email}><td colspan="7">
      <${_} error=${!s&&t} />
      ${c&&n`<${H} link=${c} onClose=${()=>m(null)} />`}
      ${s&&n`<${K} u=${e} tenants=${d} onSaved=${a} onCancel=${i} />`}
    </td></tr>`}`}function H({link:e,onClose:r}){let s=e.url||`${location.origin}/login-link?token=${encodeURIComponent(e.token)}`,[i,a]=f(""),d=R(null);C(()=>{d.current?.focus(),d.current?.select()},[s]);let t=async()=>{try{await navigator.clipboard.writeText(s),a("Copied.")}catch{d.current?.select(),a("Select the link and copy it: the browser refused the clipboard.")}};return n`<div data-link>
    <label class="field"><span>Login link (works once, until ${T(e.expires_at)})</span>
      <input ref=${d} readonly value=${s} data-link-url spellcheck="false" /></label>
    ${!e.url&&n`<p class="muted">The server has no public URL, so the link is made from this page's address.</p>`}
    <button type="button" onClick=${t}>Copy</button> <button type="button" onClick=${r}>Close</button>
    <span role="status">${i}</span>
  </div>`}function K({u:e,tenants:r,onSaved:s,onCancel:i}){let[a,d]=k(),[t,b]=f(e.role),c=q(),m=async o=>{o.preventDefault();let $=new FormData(o.target),p={},g=String($.get("name")).trim();g!==e.name&&(p.name=g),t!==e.role&&(p.role=t);let y=$.get("tenant_id");t==="user"&&y&&(y!==e.tenant_id||t!==e.role)&&(p.tenant_id=y);let v=$.get("disabled")==="on";v!==e.disabled&&(p.disabled=v),$.get("password")&&(p.password=$.get("password"));let l=String($.get("external_id")).trim();if(l!==(e.external_id||"")&&(p.external_id=l||null),Object.keys(p).length===0){i();return}await d(()=>w("PATCH",x(e),p))&&s()},u=o=>a?.fields?.[o]&&n`<span class="field-error">${a.fields[o]}</span>`;return n`<form onSubmit=${m} aria-label=${`Edit ${e.email}`} onKeyDown=${o=>o.key==="Escape"&&i()}>
    <${_} error=${a} />
    <div class="grid">
      <${h} name="name" label="Name" error=${a} defaultValue=${e.name} inputRef=${c} required maxlength="100" />
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
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${i}>Cancel</button>
  </form>`}function Q({tenants:e,onAdded:r}){let[s,i]=f(!1),[a,d]=f("user"),[t,b]=k(),c=async m=>{m.preventDefault();let u=new FormData(m.target),o={email:String(u.get("email")).trim(),name:String(u.get("name")).trim(),password:u.get("password"),role:a};a==="user"&&(o.tenant_id=u.get("tenant_id")),String(u.get("external_id")).trim()&&(o.external_id=String(u.get("external_id")).trim()),await b(()=>w("POST",S,o))&&(i(!1),r())};return s?n`<form class="card" onSubmit=${c} aria-label="New account">
    <${_} error=${t} />
    <fieldset><legend>Role</legend>
      <label class="choice"><input type="radio" name="role" value="user" checked=${a==="user"} onChange=${()=>d("user")} /> Tenant user</label>
      <label class="choice"><input type="radio" name="role" value="admin" checked=${a==="admin"} onChange=${()=>d("admin")} /> Operator (admin)</label>
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
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>i(!1)}>Cancel</button>
  </form>`:n`<button class="primary" onClick=${()=>i(!0)}>New account</button>`}export{Z as Users};
