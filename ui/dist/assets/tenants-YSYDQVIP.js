import{a as B}from"./chunk-VQPD6KH2.js";import{a as F,b as N,c as w}from"./chunk-VXCSWXAY.js";import{b as R}from"./chunk-WREHZWVI.js";import{b as T,e as U}from"./chunk-VZOWYPFL.js";import{a as E}from"./chunk-6PNQ3PEV.js";import{a as h,b as D,k as p,o as C,q as m,r as g,t as y}from"./chunk-FIHVQ2RM.js";import{g as a}from"./chunk-XGWGEZEQ.js";var S="/api/resources/tenants",O=e=>`/admin/tenants/${encodeURIComponent(e)}`,I=[["machines","Machines"],["cpu_cores","CPU cores"],["memory_mb","Memory (MB)"],["disk_gb","Disk (GB)"],["backups","Backups"],["backup_gb","Backup space (GB)"],["snapshots","Snapshots"]],v=e=>e<0?"unlimited":String(e),M=({t:e})=>e.suspension?a`<span class="badge s-suspended" data-state="suspended">suspended</span> <span data-reason>${e.suspension.reason}</span>`:a`<span class="badge s-running" data-state="active">active</span>`,Q=e=>e&&{...e,fields:Object.fromEntries(Object.entries(e.fields).map(([t,o])=>[t.replace(/^(body\.)?quota\./,""),o]))},A=({q:e,error:t})=>{let o=Q(t);return a`<fieldset><legend>Quotas (-1 is unlimited${e?"":", blank the default"})</legend><div class="grid">
  ${I.map(([r,i])=>a`<${g} name=${r} label=${i} error=${o} type="number" min="-1" defaultValue=${e?e[r]:void 0} />`)}
</div></fieldset>`},Y=1e4;function j(e,t){let[o,r]=h(null);return D(()=>{if(r(null),!e)return;let i=!0;return(async()=>{let s=[],c="";do{let n=await p("GET",`${S}?limit=500${c?`&cursor=${encodeURIComponent(c)}`:""}`);s.push(...n.items),c=n.next_cursor}while(c&&s.length<Y&&i);let u=e.toLowerCase();i&&r({items:s.filter(n=>n.name.toLowerCase().includes(u)),read:s.length,more:!!c})})().catch(s=>i&&r({items:[],error:s})),()=>{i=!1}},[e,t]),o}function re(){let[e,t]=h({name:"",external_id:""}),{page:o,error:r,reload:i,pager:s}=F(`${S}?limit=50${e.external_id?`&external_id=${encodeURIComponent(e.external_id)}`:""}`),[c,u]=h(0),n=j(e.name,c),[l,$]=h(!1),[f,x]=w(),_=!!e.name,q=_?n?.items.filter(d=>!e.external_id||d.external_id===e.external_id):o?.items,G=async d=>{d.preventDefault();let b=new FormData(d.target),P={name:b.get("name"),require_totp:b.get("require_totp")==="on",quota:N(b,I.map(([k])=>k))};b.get("external_id")&&(P.external_id=b.get("external_id")),await x(()=>p("POST",S,P))&&($(!1),T(U),i(),u(k=>k+1))},L=d=>{d.preventDefault();let b=new FormData(d.target);t({name:String(b.get("filter")).trim(),external_id:String(b.get("external_filter")).trim()})};return a`<main id="main">
    <h1>Tenants</h1>
    ${l?a`<form class="card" onSubmit=${G} aria-label="New tenant">
          <${m} error=${f} />
          <div class="grid">
            <${g} name="name" label="Name" error=${f} required maxlength="100" />
            <${g} name="external_id" label="External id (optional)" error=${f} maxlength="128" />
          </div>
          <label class="check"><input type="checkbox" name="require_totp" /> Its users must use a second factor</label>
          <${A} error=${f} />
          <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>$(!1)}>Cancel</button>
        </form>`:a`<button class="primary" onClick=${()=>$(!0)}>New tenant</button>`}
    <form class="filters" role="search" aria-label="Filter tenants" onSubmit=${L}>
      <label class="field"><span>Name contains</span><input name="filter" /></label>
      <label class="field"><span>External id</span><input name="external_filter" /></label>
      <button type="submit">Filter</button>
    </form>
    <${m} error=${r||n?.error} />
    ${_&&n&&!n.error&&a`<p role="status" data-matches>${n.items.length} of ${n.read} tenants match${n.more?` (only the first ${n.read} were read)`:""}.</p>`}
    ${q&&a`<div class="table-wrap"><table>
      <caption class="sr-only">Tenants</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Machines</th><th scope="col">CPU</th><th scope="col">Memory (MB)</th><th scope="col">Disk (GB)</th></tr></thead>
      <tbody>${q.map(d=>a`<tr key=${d.id} data-tenant=${d.name}><td><a href=${O(d.id)}>${d.name}</a></td><td><${M} t=${d} /></td>
        <td>${v(d.quota.machines)}</td><td>${v(d.quota.cpu_cores)}</td><td>${v(d.quota.memory_mb)}</td><td>${v(d.quota.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${q.length===0&&a`<p>No tenant${_||e.external_id?" matches":" yet"}.</p>`}
    ${!_&&s}`}
  </main>`}function oe({id:e}){let[t,o]=h(null),[r,i]=h(null),s=`${S}/${encodeURIComponent(e)}`;return D(()=>{p("GET",s).then(o,i)},[s]),a`<main id="main">
    <p><a href="/admin/tenants">All tenants</a></p>
    <h1>${t?a`${t.name} <${M} t=${t} />`:"Tenant"}</h1>
    <${m} error=${r} />
    ${t&&a`
      <dl class="facts">
        <dt>Id</dt><dd>${t.id}</dd>
        ${t.external_id&&a`<dt>External id</dt><dd>${t.external_id}</dd>`}
        <dt>Overview</dt><dd><a href=${`${O(t.id)}/overview`}>its machines, quota use, trends and traffic</a></dd>
        <dt>Second factor</dt><dd>${t.require_totp?"required":"optional"}</dd>
        ${t.suspension&&a`<dt>Suspended</dt><dd data-suspension>since ${C(t.suspension.since)}, machines: ${t.suspension.action}${t.suspension.machines?.length?` (${t.suspension.machines.length})`:""}</dd>`}
      </dl>
      <${H} t=${t} path=${s} onChange=${o} />
      <${z} t=${t} path=${s} onChange=${o} />
      <${J} tenant=${t.id} />
      <${B} path=${`${s}/usage`} />
      <${V} t=${t} path=${s} />`}
  </main>`}function V({t:e,path:t}){let[o,r]=w(),i=async()=>{await r(()=>p("DELETE",t))&&(T(U),R("/admin/tenants"))};return a`<${y} id="delete-part" title="Delete">
    <${m} error=${o} />
    <p>A tenant is deleted once it has no machines, users, schedules, backups or webhooks left.</p>
    <${E} name="delete-tenant" label="Delete this tenant" yes="Yes, delete it" question=${`Delete the tenant ${e.name}?`} onYes=${i} />
  <//>`}function H({t:e,path:t,onChange:o}){let[r,i]=w(),[s,c]=h(!1),u=async n=>{n.preventDefault(),c(!1);let l=N(new FormData(n.target),I.map(([$])=>$));await i(async()=>o(await p("PATCH",t,{quota:l})))&&c(!0)};return a`<${y} id="quota-part" title="Quotas">
    <${m} error=${r} />
    <form key=${e.updated_at} onSubmit=${u} aria-label="Quotas">
      <${A} q=${e.quota} error=${r} />
      <button type="submit">Save quotas</button> ${s&&a`<span role="status" data-saved>Saved.</span>`}
    </form>
  <//>`}function z({t:e,path:t,onChange:o}){let[r,i]=w(),s=(u,n)=>i(async()=>o(await p("POST",`${t}/${u}`,n)));if(e.suspension){let u=n=>{n.preventDefault(),s("unsuspend",{start:new FormData(n.target).get("start")==="on"})};return a`<${y} id="suspend-part" title="Suspension">
      <${m} error=${r} />
      <p>Suspended since ${C(e.suspension.since)}: <strong>${e.suspension.reason}</strong>.</p>
      <form onSubmit=${u} aria-label="Unsuspend" class="inline-form">
        <label class="check"><input type="checkbox" name="start" /> Start the machines the suspension stopped</label>
        <button type="submit">Unsuspend</button>
      </form>
    <//>`}return a`<${y} id="suspend-part" title="Suspension">
    <${m} error=${r} />
    <p>The tenant is active. Suspended, its users can sign in and read, but change nothing.</p>
    <form onSubmit=${u=>{u.preventDefault();let n=new FormData(u.target);s("suspend",{reason:n.get("reason"),action:n.get("action")})}} aria-label="Suspend" class="inline-form">
      <${g} name="reason" label="Reason" error=${r} required maxlength="500" />
      <label class="field"><span>Its machines</span><select name="action">
        <option value="stop">stop</option><option value="suspend">suspend (keep memory)</option><option value="none">keep running</option>
      </select></label>
      <button type="submit" class="danger">Suspend</button>
    </form>
  <//>`}function J({tenant:e}){let{page:t,error:o,reload:r,pager:i}=F(`/api/resources/users?limit=50&tenant_id=${encodeURIComponent(e)}`),[s,c]=w(),u=async l=>{l.preventDefault();let $=l.target,f=new FormData($),x={email:f.get("email"),name:f.get("name"),password:f.get("password"),role:"user",tenant_id:e};await c(()=>p("POST","/api/resources/users",x))&&($.reset(),r())},n=l=>c(()=>p("DELETE",`/api/resources/users/${encodeURIComponent(l.id)}`)).then(r);return a`<${y} id="users-part" title="Users">
    <${m} error=${o||s} />
    ${t&&(t.items.length===0?a`<p>No users yet.</p>`:a`<div class="table-wrap"><table>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Second factor</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(l=>a`<tr key=${l.id} data-user=${l.email}><td>${l.email}</td><td>${l.name}</td>
        <td>${l.totp_enabled?"on":"off"}${l.disabled?" (disabled)":""}</td>
        <td><${E} name="delete-user" label="Delete" yes="Yes, delete" question=${`Delete ${l.email}?`} onYes=${()=>n(l)} /></td></tr>`)}</tbody>
    </table></div>`)}
    ${i}
    <form onSubmit=${u} aria-label="New user">
      <div class="grid">
        <${g} name="email" label="E-mail" error=${s} type="email" required autocomplete="off" />
        <${g} name="name" label="Name" error=${s} required />
        <${g} name="password" label="Password" error=${s} type="password" required autocomplete="new-password" />
      </div>
      <button type="submit">Add user</button>
    </form>
  <//>`}export{oe as Tenant,re as Tenants};
