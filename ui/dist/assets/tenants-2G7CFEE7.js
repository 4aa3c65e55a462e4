import{a as F,b as N,c as S}from"./chunk-MTL65ZAK.js";import{b as R}from"./chunk-YQSPOLJD.js";import{b as T,e as U}from"./chunk-PBPSO6V7.js";import{a as v}from"./chunk-HOYY2OMK.js";import{a as B}from"./chunk-GG2H52WN.js";import{a as b,b as C,l as p,p as E,r as m,s as f,u as w}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var q="/api/resources/tenants",O=e=>`/admin/tenants/${encodeURIComponent(e)}`,I=[["machines","Machines"],["cpu_cores","CPU cores"],["memory_mb","Memory (MB)"],["disk_gb","Disk (GB)"],["backups","Backups"],["backup_gb","Backup space (GB)"],["snapshots","Snapshots"]],x=e=>e<0?"unlimited":String(e),A=({t:e})=>e.suspension?n`<span class="badge s-suspended" data-state="suspended">suspended</span> <span data-reason>${e.suspension.reason}</span>`:n`<span class="badge s-running" data-state="active">active</span>`,L=e=>e&&{...e,fields:Object.fromEntries(Object.entries(e.fields).map(([t,i])=>[t.replace(/^(body\.)?quota\./,""),i]))},M=({q:e,error:t})=>{let i=L(t);return n`<fieldset><legend>Quotas (-1 is unlimited${e?"":", blank the default"})</legend><div class="grid">
  ${I.map(([o,l])=>n`<${f} name=${o} label=${l} error=${i} type="number" min="-1" defaultValue=${e?e[o]:void 0} />`)}
</div></fieldset>`},Q=1e4;function j(e,t){let[i,o]=b(null);return C(()=>{if(o(null),!e)return;let l=!0;return(async()=>{let r=[],c="";do{let s=await p("GET",`${q}?limit=500${c?`&cursor=${encodeURIComponent(c)}`:""}`);r.push(...s.items),c=s.next_cursor}while(c&&r.length<Q&&l);let u=e.toLowerCase();l&&o({items:r.filter(s=>s.name.toLowerCase().includes(u)),read:r.length,more:!!c})})().catch(r=>l&&o({items:[],error:r})),()=>{l=!1}},[e,t]),i}function re(){let[e,t]=b({name:"",external_id:""}),{page:i,error:o,reload:l,pager:r}=F(`${q}?limit=50${e.external_id?`&external_id=${encodeURIComponent(e.external_id)}`:""}`),[c,u]=b(0),s=j(e.name,c),[g,a]=b(!1),[h,_]=S(),y=!!e.name,D=y?s?.items.filter(d=>!e.external_id||d.external_id===e.external_id):i?.items,Y=async d=>{d.preventDefault();let $=new FormData(d.target),P={name:$.get("name"),require_totp:$.get("require_totp")==="on",quota:N($,I.map(([k])=>k))};$.get("external_id")&&(P.external_id=$.get("external_id")),await _(()=>p("POST",q,P))&&(a(!1),T(U),l(),u(k=>k+1))},G=d=>{d.preventDefault();let $=new FormData(d.target);t({name:String($.get("filter")).trim(),external_id:String($.get("external_filter")).trim()})};return n`<main id="main">
    <h1>Tenants</h1>
    ${g?n`<form class="card" onSubmit=${Y} aria-label="New tenant">
          <${m} error=${h} />
          <div class="grid">
            <${f} name="name" label="Name" error=${h} required maxlength="100" />
            <${f} name="external_id" label="External id (optional)" error=${h} maxlength="128" />
          </div>
          <label class="check"><input type="checkbox" name="require_totp" /> Its users must use a second factor</label>
          <${M} error=${h} />
          <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>a(!1)}>Cancel</button>
        </form>`:n`<button class="primary" onClick=${()=>a(!0)}>New tenant</button>`}
    <form class="filters" role="search" aria-label="Filter tenants" onSubmit=${G}>
      <label class="field"><span>Name contains</span><input name="filter" /></label>
      <label class="field"><span>External id</span><input name="external_filter" /></label>
      <button type="submit">Filter</button>
    </form>
    <${m} error=${o||s?.error} />
    ${y&&s&&!s.error&&n`<p role="status" data-matches>${s.items.length} of ${s.read} tenants match${s.more?` (only the first ${s.read} were read)`:""}.</p>`}
    ${D&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Tenants</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Machines</th><th scope="col">CPU</th><th scope="col">Memory (MB)</th><th scope="col">Disk (GB)</th></tr></thead>
      <tbody>${D.map(d=>n`<tr key=${d.id} data-tenant=${d.name}><td><a href=${O(d.id)}>${d.name}</a></td><td><${A} t=${d} /></td>
        <td>${x(d.quota.machines)}</td><td>${x(d.quota.cpu_cores)}</td><td>${x(d.quota.memory_mb)}</td><td>${x(d.quota.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${D.length===0&&n`<p>No tenant${y||e.external_id?" matches":" yet"}.</p>`}
    ${!y&&r}`}
  </main>`}function oe({id:e}){let[t,i]=b(null),[o,l]=b(null),r=`${q}/${encodeURIComponent(e)}`;return C(()=>{p("GET",r).then(i,l)},[r]),n`<main id="main">
    <p><a href="/admin/tenants">All tenants</a></p>
    <h1>${t?n`${t.name} <${A} t=${t} />`:"Tenant"}</h1>
    <${m} error=${o} />
    ${t&&n`
      <dl class="facts">
        <dt>Id</dt><dd>${t.id}</dd>
        ${t.external_id&&n`<dt>External id</dt><dd>${t.external_id}</dd>`}
        <dt>Overview</dt><dd><a href=${`${O(t.id)}/overview`}>its machines, quota use, trends and traffic</a></dd>
        <dt>Second factor</dt><dd>${t.require_totp?"required":"optional"}</dd>
        ${t.suspension&&n`<dt>Suspended</dt><dd data-suspension>since ${E(t.suspension.since)}, machines: ${t.suspension.action}${t.suspension.machines?.length?` (${t.suspension.machines.length})`:""}</dd>`}
      </dl>
      <${V} t=${t} path=${r} onChange=${i} />
      <${z} t=${t} path=${r} onChange=${i} />
      <${J} tenant=${t.id} />
      <${B} path=${`${r}/usage`} />
      <${H} t=${t} path=${r} />`}
  </main>`}function H({t:e,path:t}){let[i,o]=S(),l=async()=>{await o(()=>p("DELETE",t))&&(T(U),R("/admin/tenants"))};return n`<${w} id="delete-part" title="Delete">
    <${m} error=${i} />
    <p>A tenant is deleted once it has no machines, users, schedules, backups or webhooks left.</p>
    <${v} name="delete-tenant" label="Delete this tenant" yes="Yes, delete it" question=${`Delete the tenant ${e.name}?`} onYes=${l} />
  <//>`}function V({t:e,path:t,onChange:i}){let[o,l]=S(),[r,c]=b(!1),u=async s=>{s.preventDefault(),c(!1);let g=N(new FormData(s.target),I.map(([a])=>a));await l(async()=>i(await p("PATCH",t,{quota:g})))&&c(!0)};return n`<${w} id="quota-part" title="Quotas">
    <${m} error=${o} />
    <form key=${e.updated_at} onSubmit=${u} aria-label="Quotas">
      <${M} q=${e.quota} error=${o} />
      <button type="submit">Save quotas</button> ${r&&n`<span role="status" data-saved>Saved.</span>`}
    </form>
  <//>`}function z({t:e,path:t,onChange:i}){let[o,l]=S(),r=(u,s)=>l(async()=>i(await p("POST",`${t}/${u}`,s)));if(e.suspension){let u=s=>{s.preventDefault(),r("unsuspend",{start:new FormData(s.target).get("start")==="on"})};return n`<${w} id="suspend-part" title="Suspension">
      <${m} error=${o} />
      <p>Suspended since ${E(e.suspension.since)}: <strong>${e.suspension.reason}</strong>.</p>
      <form onSubmit=${u} aria-label="Unsuspend" class="inline-form">
        <label class="check"><input type="checkbox" name="start" /> Start the machines the suspension stopped</label>
        <button type="submit">Unsuspend</button>
      </form>
    <//>`}return n`<${w} id="suspend-part" title="Suspension">
    <${m} error=${o} />
    <p>The tenant is active. Suspended, its users can sign in and read, but change nothing.</p>
    <form onSubmit=${u=>{u.preventDefault();let s=new FormData(u.target);r("suspend",{reason:s.get("reason"),action:s.get("action")})}} aria-label="Suspend" class="inline-form">
      <${f} name="reason" label="Reason" error=${o} required maxlength="500" />
      <label class="field"><span>Its machines</span><select name="action">
        <option value="stop">stop</option><option value="suspend">suspend (keep memory)</option><option value="none">keep running</option>
      </select></label>
      <button type="submit" class="danger">Suspend</button>
    </form>
  <//>`}function J({tenant:e}){let{page:t,error:i,reload:o,pager:l}=F(`/api/resources/users?limit=50&tenant_id=${encodeURIComponent(e)}`),[r,c]=S(),u=async a=>{a.preventDefault();let h=a.target,_=new FormData(h),y={email:_.get("email"),name:_.get("name"),password:_.get("password"),role:"user",tenant_id:e};await c(()=>p("POST","/api/resources/users",y))&&(h.reset(),o())},s=a=>c(()=>p("DELETE",`/api/resources/users/${encodeURIComponent(a.id)}`)).then(o),g=a=>c(()=>p("PATCH",`/api/resources/users/${encodeURIComponent(a.id)}`,{disabled:!a.disabled})).then(o);return n`<${w} id="users-part" title="Users">
    <${m} error=${i||r} />
    ${t&&(t.items.length===0?n`<p>No users yet.</p>`:n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Second factor</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(a=>n`<tr key=${a.id} data-user=${a.email}><td>${a.email}</td><td>${a.name}</td>
        <td>${a.totp_enabled?"on":"off"}</td><td data-user-state>${a.disabled?"disabled":"enabled"}</td>
        <td class="row-actions">${a.disabled?n`<button type="button" data-enable=${a.email} onClick=${()=>g(a)}>Enable</button>`:n`<${v} name="disable-user" label="Disable" yes="Yes, disable" question=${`Disable ${a.email}? Their logins end.`} onYes=${()=>g(a)} />`}
          <${v} name="delete-user" label="Delete" yes="Yes, delete" question=${`Delete ${a.email}?`} onYes=${()=>s(a)} /></td></tr>`)}</tbody>
    </table></div>`)}
    ${l}
    <form onSubmit=${u} aria-label="New user">
      <div class="grid">
        <${f} name="email" label="E-mail" error=${r} type="email" required autocomplete="off" />
        <${f} name="name" label="Name" error=${r} required />
        <${f} name="password" label="Password" error=${r} type="password" required autocomplete="new-password" />
      </div>
      <button type="submit">Add user</button>
    </form>
  <//>`}export{oe as Tenant,re as Tenants};
