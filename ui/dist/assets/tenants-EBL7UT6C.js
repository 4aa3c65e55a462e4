import{a as E}from"./chunk-VQPD6KH2.js";import{a as q,b as _,c as y}from"./chunk-VXCSWXAY.js";import{a as T}from"./chunk-6PNQ3PEV.js";import{a as f,b as x,k as b,o as S,q as u,r as m,t as g}from"./chunk-FIHVQ2RM.js";import{g as a}from"./chunk-XGWGEZEQ.js";var k="/api/resources/tenants",N=t=>`/admin/tenants/${encodeURIComponent(t)}`,C=[["machines","Machines"],["cpu_cores","CPU cores"],["memory_mb","Memory (MB)"],["disk_gb","Disk (GB)"],["backups","Backups"],["backup_gb","Backup space (GB)"],["snapshots","Snapshots"]],w=t=>t<0?"unlimited":String(t),U=({t})=>t.suspension?a`<span class="badge s-suspended" data-state="suspended">suspended</span> <span data-reason>${t.suspension.reason}</span>`:a`<span class="badge s-running" data-state="active">active</span>`,F=t=>t&&{...t,fields:Object.fromEntries(Object.entries(t.fields).map(([e,d])=>[e.replace(/^(body\.)?quota\./,""),d]))},I=({q:t,error:e})=>{let d=F(e);return a`<fieldset><legend>Quotas (-1 is unlimited${t?"":", blank the default"})</legend><div class="grid">
  ${C.map(([i,p])=>a`<${m} name=${i} label=${p} error=${d} type="number" min="-1" defaultValue=${t?t[i]:void 0} />`)}
</div></fieldset>`};function Y(){let{page:t,error:e,reload:d,pager:i}=q(`${k}?limit=50`),[p,s]=f(""),[c,l]=f(!1),[o,r]=y(),$=(t?.items||[]).filter(n=>n.name.toLowerCase().includes(p.trim().toLowerCase()));return a`<main id="main">
    <h1>Tenants</h1>
    ${c?a`<form class="card" onSubmit=${async n=>{n.preventDefault();let h=new FormData(n.target),D={name:h.get("name"),require_totp:h.get("require_totp")==="on",quota:_(h,C.map(([P])=>P))};h.get("external_id")&&(D.external_id=h.get("external_id")),await r(()=>b("POST",k,D))&&(l(!1),d())}} aria-label="New tenant">
          <${u} error=${o} />
          <div class="grid">
            <${m} name="name" label="Name" error=${o} required maxlength="100" />
            <${m} name="external_id" label="External id (optional)" error=${o} maxlength="128" />
          </div>
          <label class="check"><input type="checkbox" name="require_totp" /> Its users must use a second factor</label>
          <${I} error=${o} />
          <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
        </form>`:a`<button class="primary" onClick=${()=>l(!0)}>New tenant</button>`}
    <form class="filters" role="search" aria-label="Filter tenants" onSubmit=${n=>n.preventDefault()}>
      <label class="field"><span>Name contains (this page)</span><input name="filter" value=${p} onInput=${n=>s(n.target.value)} /></label>
    </form>
    <${u} error=${e} />
    ${t&&a`<div class="table-wrap"><table>
      <caption class="sr-only">Tenants</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Machines</th><th scope="col">CPU</th><th scope="col">Memory (MB)</th><th scope="col">Disk (GB)</th></tr></thead>
      <tbody>${$.map(n=>a`<tr key=${n.id} data-tenant=${n.name}><td><a href=${N(n.id)}>${n.name}</a></td><td><${U} t=${n} /></td>
        <td>${w(n.quota.machines)}</td><td>${w(n.quota.cpu_cores)}</td><td>${w(n.quota.memory_mb)}</td><td>${w(n.quota.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${$.length===0&&a`<p>No tenant${p?" of that name on this page":""}.</p>`}
    ${i}`}
  </main>`}function H({id:t}){let[e,d]=f(null),[i,p]=f(null),s=`${k}/${encodeURIComponent(t)}`;return x(()=>{b("GET",s).then(d,p)},[s]),a`<main id="main">
    <p><a href="/admin/tenants">All tenants</a></p>
    <h1>${e?a`${e.name} <${U} t=${e} />`:"Tenant"}</h1>
    <${u} error=${i} />
    ${e&&a`
      <dl class="facts">
        <dt>Id</dt><dd>${e.id}</dd>
        ${e.external_id&&a`<dt>External id</dt><dd>${e.external_id}</dd>`}
        <dt>Overview</dt><dd><a href=${`${N(e.id)}/overview`}>its machines, quota use, trends and traffic</a></dd>
        <dt>Second factor</dt><dd>${e.require_totp?"required":"optional"}</dd>
        ${e.suspension&&a`<dt>Suspended</dt><dd data-suspension>since ${S(e.suspension.since)}, machines: ${e.suspension.action}${e.suspension.machines?.length?` (${e.suspension.machines.length})`:""}</dd>`}
      </dl>
      <${B} t=${e} path=${s} onChange=${d} />
      <${O} t=${e} path=${s} onChange=${d} />
      <${M} tenant=${e.id} />
      <${E} path=${`${s}/usage`} />`}
  </main>`}function B({t,path:e,onChange:d}){let[i,p]=y(),[s,c]=f(!1),l=async o=>{o.preventDefault(),c(!1);let r=_(new FormData(o.target),C.map(([$])=>$));await p(async()=>d(await b("PATCH",e,{quota:r})))&&c(!0)};return a`<${g} id="quota-part" title="Quotas">
    <${u} error=${i} />
    <form key=${t.updated_at} onSubmit=${l} aria-label="Quotas">
      <${I} q=${t.quota} error=${i} />
      <button type="submit">Save quotas</button> ${s&&a`<span role="status" data-saved>Saved.</span>`}
    </form>
  <//>`}function O({t,path:e,onChange:d}){let[i,p]=y(),s=(l,o)=>p(async()=>d(await b("POST",`${e}/${l}`,o)));if(t.suspension){let l=o=>{o.preventDefault(),s("unsuspend",{start:new FormData(o.target).get("start")==="on"})};return a`<${g} id="suspend-part" title="Suspension">
      <${u} error=${i} />
      <p>Suspended since ${S(t.suspension.since)}: <strong>${t.suspension.reason}</strong>.</p>
      <form onSubmit=${l} aria-label="Unsuspend" class="inline-form">
        <label class="check"><input type="checkbox" name="start" /> Start the machines the suspension stopped</label>
        <button type="submit">Unsuspend</button>
      </form>
    <//>`}return a`<${g} id="suspend-part" title="Suspension">
    <${u} error=${i} />
    <p>The tenant is active. Suspended, its users can sign in and read, but change nothing.</p>
    <form onSubmit=${l=>{l.preventDefault();let o=new FormData(l.target);s("suspend",{reason:o.get("reason"),action:o.get("action")})}} aria-label="Suspend" class="inline-form">
      <${m} name="reason" label="Reason" error=${i} required maxlength="500" />
      <label class="field"><span>Its machines</span><select name="action">
        <option value="stop">stop</option><option value="suspend">suspend (keep memory)</option><option value="none">keep running</option>
      </select></label>
      <button type="submit" class="danger">Suspend</button>
    </form>
  <//>`}function M({tenant:t}){let{page:e,error:d,reload:i,pager:p}=q(`/api/resources/users?limit=50&tenant_id=${encodeURIComponent(t)}`),[s,c]=y(),l=async r=>{r.preventDefault();let $=r.target,v=new FormData($),n={email:v.get("email"),name:v.get("name"),password:v.get("password"),role:"user",tenant_id:t};await c(()=>b("POST","/api/resources/users",n))&&($.reset(),i())},o=r=>c(()=>b("DELETE",`/api/resources/users/${encodeURIComponent(r.id)}`)).then(i);return a`<${g} id="users-part" title="Users">
    <${u} error=${d||s} />
    ${e&&(e.items.length===0?a`<p>No users yet.</p>`:a`<div class="table-wrap"><table>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Second factor</th><th scope="col">Actions</th></tr></thead>
      <tbody>${e.items.map(r=>a`<tr key=${r.id} data-user=${r.email}><td>${r.email}</td><td>${r.name}</td>
        <td>${r.totp_enabled?"on":"off"}${r.disabled?" (disabled)":""}</td>
        <td><${T} name="delete-user" label="Delete" yes="Yes, delete" question=${`Delete ${r.email}?`} onYes=${()=>o(r)} /></td></tr>`)}</tbody>
    </table></div>`)}
    ${p}
    <form onSubmit=${l} aria-label="New user">
      <div class="grid">
        <${m} name="email" label="E-mail" error=${s} type="email" required autocomplete="off" />
        <${m} name="name" label="Name" error=${s} required />
        <${m} name="password" label="Password" error=${s} type="password" required autocomplete="new-password" />
      </div>
      <button type="submit">Add user</button>
    </form>
  <//>`}export{H as Tenant,Y as Tenants};
