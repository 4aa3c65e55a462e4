import{a as R}from"./chunk-VQPD6KH2.js";import{a as E,b as T,c as w}from"./chunk-VXCSWXAY.js";import{b as I,e as P}from"./chunk-VZOWYPFL.js";import{a as N}from"./chunk-6PNQ3PEV.js";import{a as f,b as C,k as b,o as D,q as h,r as g,t as y}from"./chunk-FIHVQ2RM.js";import{g as a}from"./chunk-XGWGEZEQ.js";var S="/api/resources/tenants",B=e=>`/admin/tenants/${encodeURIComponent(e)}`,U=[["machines","Machines"],["cpu_cores","CPU cores"],["memory_mb","Memory (MB)"],["disk_gb","Disk (GB)"],["backups","Backups"],["backup_gb","Backup space (GB)"],["snapshots","Snapshots"]],v=e=>e<0?"unlimited":String(e),O=({t:e})=>e.suspension?a`<span class="badge s-suspended" data-state="suspended">suspended</span> <span data-reason>${e.suspension.reason}</span>`:a`<span class="badge s-running" data-state="active">active</span>`,A=e=>e&&{...e,fields:Object.fromEntries(Object.entries(e.fields).map(([t,o])=>[t.replace(/^(body\.)?quota\./,""),o]))},M=({q:e,error:t})=>{let o=A(t);return a`<fieldset><legend>Quotas (-1 is unlimited${e?"":", blank the default"})</legend><div class="grid">
  ${U.map(([r,d])=>a`<${g} name=${r} label=${d} error=${o} type="number" min="-1" defaultValue=${e?e[r]:void 0} />`)}
</div></fieldset>`},L=1e4;function j(e,t){let[o,r]=f(null);return C(()=>{if(r(null),!e)return;let d=!0;return(async()=>{let s=[],c="";do{let n=await b("GET",`${S}?limit=500${c?`&cursor=${encodeURIComponent(c)}`:""}`);s.push(...n.items),c=n.next_cursor}while(c&&s.length<L&&d);let u=e.toLowerCase();d&&r({items:s.filter(n=>n.name.toLowerCase().includes(u)),read:s.length,more:!!c})})().catch(s=>d&&r({items:[],error:s})),()=>{d=!1}},[e,t]),o}function ne(){let[e,t]=f({name:"",external_id:""}),{page:o,error:r,reload:d,pager:s}=E(`${S}?limit=50${e.external_id?`&external_id=${encodeURIComponent(e.external_id)}`:""}`),[c,u]=f(0),n=j(e.name,c),[i,p]=f(!1),[m,x]=w(),_=!!e.name,q=_?n?.items.filter(l=>!e.external_id||l.external_id===e.external_id):o?.items,G=async l=>{l.preventDefault();let $=new FormData(l.target),F={name:$.get("name"),require_totp:$.get("require_totp")==="on",quota:T($,U.map(([k])=>k))};$.get("external_id")&&(F.external_id=$.get("external_id")),await x(()=>b("POST",S,F))&&(p(!1),I(P),d(),u(k=>k+1))},Q=l=>{l.preventDefault();let $=new FormData(l.target);t({name:String($.get("filter")).trim(),external_id:String($.get("external_filter")).trim()})};return a`<main id="main">
    <h1>Tenants</h1>
    ${i?a`<form class="card" onSubmit=${G} aria-label="New tenant">
          <${h} error=${m} />
          <div class="grid">
            <${g} name="name" label="Name" error=${m} required maxlength="100" />
            <${g} name="external_id" label="External id (optional)" error=${m} maxlength="128" />
          </div>
          <label class="check"><input type="checkbox" name="require_totp" /> Its users must use a second factor</label>
          <${M} error=${m} />
          <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>p(!1)}>Cancel</button>
        </form>`:a`<button class="primary" onClick=${()=>p(!0)}>New tenant</button>`}
    <form class="filters" role="search" aria-label="Filter tenants" onSubmit=${Q}>
      <label class="field"><span>Name contains</span><input name="filter" /></label>
      <label class="field"><span>External id</span><input name="external_filter" /></label>
      <button type="submit">Filter</button>
    </form>
    <${h} error=${r||n?.error} />
    ${_&&n&&!n.error&&a`<p role="status" data-matches>${n.items.length} of ${n.read} tenants match${n.more?` (only the first ${n.read} were read)`:""}.</p>`}
    ${q&&a`<div class="table-wrap"><table>
      <caption class="sr-only">Tenants</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Machines</th><th scope="col">CPU</th><th scope="col">Memory (MB)</th><th scope="col">Disk (GB)</th></tr></thead>
      <tbody>${q.map(l=>a`<tr key=${l.id} data-tenant=${l.name}><td><a href=${B(l.id)}>${l.name}</a></td><td><${O} t=${l} /></td>
        <td>${v(l.quota.machines)}</td><td>${v(l.quota.cpu_cores)}</td><td>${v(l.quota.memory_mb)}</td><td>${v(l.quota.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${q.length===0&&a`<p>No tenant${_||e.external_id?" matches":" yet"}.</p>`}
    ${!_&&s}`}
  </main>`}function ae({id:e}){let[t,o]=f(null),[r,d]=f(null),s=`${S}/${encodeURIComponent(e)}`;return C(()=>{b("GET",s).then(o,d)},[s]),a`<main id="main">
    <p><a href="/admin/tenants">All tenants</a></p>
    <h1>${t?a`${t.name} <${O} t=${t} />`:"Tenant"}</h1>
    <${h} error=${r} />
    ${t&&a`
      <dl class="facts">
        <dt>Id</dt><dd>${t.id}</dd>
        ${t.external_id&&a`<dt>External id</dt><dd>${t.external_id}</dd>`}
        <dt>Overview</dt><dd><a href=${`${B(t.id)}/overview`}>its machines, quota use, trends and traffic</a></dd>
        <dt>Second factor</dt><dd>${t.require_totp?"required":"optional"}</dd>
        ${t.suspension&&a`<dt>Suspended</dt><dd data-suspension>since ${D(t.suspension.since)}, machines: ${t.suspension.action}${t.suspension.machines?.length?` (${t.suspension.machines.length})`:""}</dd>`}
      </dl>
      <${V} t=${t} path=${s} onChange=${o} />
      <${Y} t=${t} path=${s} onChange=${o} />
      <${H} tenant=${t.id} />
      <${R} path=${`${s}/usage`} />`}
  </main>`}function V({t:e,path:t,onChange:o}){let[r,d]=w(),[s,c]=f(!1),u=async n=>{n.preventDefault(),c(!1);let i=T(new FormData(n.target),U.map(([p])=>p));await d(async()=>o(await b("PATCH",t,{quota:i})))&&c(!0)};return a`<${y} id="quota-part" title="Quotas">
    <${h} error=${r} />
    <form key=${e.updated_at} onSubmit=${u} aria-label="Quotas">
      <${M} q=${e.quota} error=${r} />
      <button type="submit">Save quotas</button> ${s&&a`<span role="status" data-saved>Saved.</span>`}
    </form>
  <//>`}function Y({t:e,path:t,onChange:o}){let[r,d]=w(),s=(u,n)=>d(async()=>o(await b("POST",`${t}/${u}`,n)));if(e.suspension){let u=n=>{n.preventDefault(),s("unsuspend",{start:new FormData(n.target).get("start")==="on"})};return a`<${y} id="suspend-part" title="Suspension">
      <${h} error=${r} />
      <p>Suspended since ${D(e.suspension.since)}: <strong>${e.suspension.reason}</strong>.</p>
      <form onSubmit=${u} aria-label="Unsuspend" class="inline-form">
        <label class="check"><input type="checkbox" name="start" /> Start the machines the suspension stopped</label>
        <button type="submit">Unsuspend</button>
      </form>
    <//>`}return a`<${y} id="suspend-part" title="Suspension">
    <${h} error=${r} />
    <p>The tenant is active. Suspended, its users can sign in and read, but change nothing.</p>
    <form onSubmit=${u=>{u.preventDefault();let n=new FormData(u.target);s("suspend",{reason:n.get("reason"),action:n.get("action")})}} aria-label="Suspend" class="inline-form">
      <${g} name="reason" label="Reason" error=${r} required maxlength="500" />
      <label class="field"><span>Its machines</span><select name="action">
        <option value="stop">stop</option><option value="suspend">suspend (keep memory)</option><option value="none">keep running</option>
      </select></label>
      <button type="submit" class="danger">Suspend</button>
    </form>
  <//>`}function H({tenant:e}){let{page:t,error:o,reload:r,pager:d}=E(`/api/resources/users?limit=50&tenant_id=${encodeURIComponent(e)}`),[s,c]=w(),u=async i=>{i.preventDefault();let p=i.target,m=new FormData(p),x={email:m.get("email"),name:m.get("name"),password:m.get("password"),role:"user",tenant_id:e};await c(()=>b("POST","/api/resources/users",x))&&(p.reset(),r())},n=i=>c(()=>b("DELETE",`/api/resources/users/${encodeURIComponent(i.id)}`)).then(r);return a`<${y} id="users-part" title="Users">
    <${h} error=${o||s} />
    ${t&&(t.items.length===0?a`<p>No users yet.</p>`:a`<div class="table-wrap"><table>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Second factor</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(i=>a`<tr key=${i.id} data-user=${i.email}><td>${i.email}</td><td>${i.name}</td>
        <td>${i.totp_enabled?"on":"off"}${i.disabled?" (disabled)":""}</td>
        <td><${N} name="delete-user" label="Delete" yes="Yes, delete" question=${`Delete ${i.email}?`} onYes=${()=>n(i)} /></td></tr>`)}</tbody>
    </table></div>`)}
    ${d}
    <form onSubmit=${u} aria-label="New user">
      <div class="grid">
        <${g} name="email" label="E-mail" error=${s} type="email" required autocomplete="off" />
        <${g} name="name" label="Name" error=${s} required />
        <${g} name="password" label="Password" error=${s} type="password" required autocomplete="new-password" />
      </div>
      <button type="submit">Add user</button>
    </form>
  <//>`}export{ae as Tenant,ne as Tenants};
