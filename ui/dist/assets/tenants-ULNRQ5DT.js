import{a as P}from"./chunk-6PNQ3PEV.js";import{a as m,b as w,d as N,k as b,o as v,q as h,r as f,s as D,t as S}from"./chunk-FIHVQ2RM.js";import{g as n}from"./chunk-XGWGEZEQ.js";function T(e){let[t,o]=m([""]),[a,r]=m(null),[c,p]=m(null),[d,u]=m(0),[i,s]=m(e),$=i===e?t[t.length-1]:"";w(()=>{i!==e&&(s(e),o([""]));let g=!0,C=e.includes("?")?"&":"?";return b("GET",$?`${e}${C}cursor=${encodeURIComponent($)}`:e).then(q=>{g&&(r(q),p(null))},q=>g&&p(q)),()=>{g=!1}},[e,$,d]);let l=N(()=>u(g=>g+1),[]),y=a&&n`<nav class="pager" aria-label="Pages">
    <button type="button" disabled=${t.length===1} onClick=${()=>o(t.slice(0,-1))}>Previous</button>
    <button type="button" disabled=${!a.next_cursor} onClick=${()=>o([...t,a.next_cursor])}>Next</button>
  </nav>`;return{page:a,error:c,setError:p,reload:l,pager:y}}function x(e,t){let o={};for(let a of t){let r=String(e.get(a)??"").trim();r!==""&&(o[a]=Number(r))}return o}function _(){let[e,t]=m(null);return[e,async a=>{t(null);try{return await a(),!0}catch(r){return t(r),!1}},t]}var U="/api/resources/tenants",M=e=>`/admin/tenants/${encodeURIComponent(e)}`,E=[["machines","Machines"],["cpu_cores","CPU cores"],["memory_mb","Memory (MB)"],["disk_gb","Disk (GB)"],["backups","Backups"],["backup_gb","Backup space (GB)"],["snapshots","Snapshots"]],k=e=>e<0?"unlimited":String(e),R=({t:e})=>e.suspension?n`<span class="badge s-suspended" data-state="suspended">suspended</span> <span data-reason>${e.suspension.reason}</span>`:n`<span class="badge s-running" data-state="active">active</span>`,O=e=>e&&{...e,fields:Object.fromEntries(Object.entries(e.fields).map(([t,o])=>[t.replace(/^(body\.)?quota\./,""),o]))},B=({q:e,error:t})=>{let o=O(t);return n`<fieldset><legend>Quotas (-1 is unlimited${e?"":", blank the default"})</legend><div class="grid">
  ${E.map(([a,r])=>n`<${f} name=${a} label=${r} error=${o} type="number" min="-1" defaultValue=${e?e[a]:void 0} />`)}
</div></fieldset>`};function ee(){let{page:e,error:t,reload:o,pager:a}=T(`${U}?limit=50`),[r,c]=m(""),[p,d]=m(!1),[u,i]=_(),s=(e?.items||[]).filter(l=>l.name.toLowerCase().includes(r.trim().toLowerCase()));return n`<main id="main">
    <h1>Tenants</h1>
    ${p?n`<form class="card" onSubmit=${async l=>{l.preventDefault();let y=new FormData(l.target),g={name:y.get("name"),require_totp:y.get("require_totp")==="on",quota:x(y,E.map(([C])=>C))};y.get("external_id")&&(g.external_id=y.get("external_id")),await i(()=>b("POST",U,g))&&(d(!1),o())}} aria-label="New tenant">
          <${h} error=${u} />
          <div class="grid">
            <${f} name="name" label="Name" error=${u} required maxlength="100" />
            <${f} name="external_id" label="External id (optional)" error=${u} maxlength="128" />
          </div>
          <label class="check"><input type="checkbox" name="require_totp" /> Its users must use a second factor</label>
          <${B} error=${u} />
          <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
        </form>`:n`<button class="primary" onClick=${()=>d(!0)}>New tenant</button>`}
    <form class="filters" role="search" aria-label="Filter tenants" onSubmit=${l=>l.preventDefault()}>
      <label class="field"><span>Name contains (this page)</span><input name="filter" value=${r} onInput=${l=>c(l.target.value)} /></label>
    </form>
    <${h} error=${t} />
    ${e&&n`<div class="table-wrap"><table>
      <caption class="sr-only">Tenants</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Machines</th><th scope="col">CPU</th><th scope="col">Memory (MB)</th><th scope="col">Disk (GB)</th></tr></thead>
      <tbody>${s.map(l=>n`<tr key=${l.id} data-tenant=${l.name}><td><a href=${M(l.id)}>${l.name}</a></td><td><${R} t=${l} /></td>
        <td>${k(l.quota.machines)}</td><td>${k(l.quota.cpu_cores)}</td><td>${k(l.quota.memory_mb)}</td><td>${k(l.quota.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${s.length===0&&n`<p>No tenant${r?" of that name on this page":""}.</p>`}
    ${a}`}
  </main>`}function te({id:e}){let[t,o]=m(null),[a,r]=m(null),c=`${U}/${encodeURIComponent(e)}`;return w(()=>{b("GET",c).then(o,r)},[c]),n`<main id="main">
    <p><a href="/admin/tenants">All tenants</a></p>
    <h1>${t?n`${t.name} <${R} t=${t} />`:"Tenant"}</h1>
    <${h} error=${a} />
    ${t&&n`
      <dl class="facts">
        <dt>Id</dt><dd>${t.id}</dd>
        ${t.external_id&&n`<dt>External id</dt><dd>${t.external_id}</dd>`}
        <dt>Second factor</dt><dd>${t.require_totp?"required":"optional"}</dd>
        ${t.suspension&&n`<dt>Suspended</dt><dd data-suspension>since ${v(t.suspension.since)}, machines: ${t.suspension.action}${t.suspension.machines?.length?` (${t.suspension.machines.length})`:""}</dd>`}
      </dl>
      <${G} t=${t} path=${c} onChange=${o} />
      <${L} t=${t} path=${c} onChange=${o} />
      <${Q} tenant=${t.id} />
      <${A} path=${`${c}/usage`} />`}
  </main>`}function G({t:e,path:t,onChange:o}){let[a,r]=_(),[c,p]=m(!1),d=async u=>{u.preventDefault(),p(!1);let i=x(new FormData(u.target),E.map(([s])=>s));await r(async()=>o(await b("PATCH",t,{quota:i})))&&p(!0)};return n`<${S} id="quota-part" title="Quotas">
    <${h} error=${a} />
    <form key=${e.updated_at} onSubmit=${d} aria-label="Quotas">
      <${B} q=${e.quota} error=${a} />
      <button type="submit">Save quotas</button> ${c&&n`<span role="status" data-saved>Saved.</span>`}
    </form>
  <//>`}function L({t:e,path:t,onChange:o}){let[a,r]=_(),c=(d,u)=>r(async()=>o(await b("POST",`${t}/${d}`,u)));if(e.suspension){let d=u=>{u.preventDefault(),c("unsuspend",{start:new FormData(u.target).get("start")==="on"})};return n`<${S} id="suspend-part" title="Suspension">
      <${h} error=${a} />
      <p>Suspended since ${v(e.suspension.since)}: <strong>${e.suspension.reason}</strong>.</p>
      <form onSubmit=${d} aria-label="Unsuspend" class="inline-form">
        <label class="check"><input type="checkbox" name="start" /> Start the machines the suspension stopped</label>
        <button type="submit">Unsuspend</button>
      </form>
    <//>`}return n`<${S} id="suspend-part" title="Suspension">
    <${h} error=${a} />
    <p>The tenant is active. Suspended, its users can sign in and read, but change nothing.</p>
    <form onSubmit=${d=>{d.preventDefault();let u=new FormData(d.target);c("suspend",{reason:u.get("reason"),action:u.get("action")})}} aria-label="Suspend" class="inline-form">
      <${f} name="reason" label="Reason" error=${a} required maxlength="500" />
      <label class="field"><span>Its machines</span><select name="action">
        <option value="stop">stop</option><option value="suspend">suspend (keep memory)</option><option value="none">keep running</option>
      </select></label>
      <button type="submit" class="danger">Suspend</button>
    </form>
  <//>`}function Q({tenant:e}){let{page:t,error:o,reload:a,pager:r}=T(`/api/resources/users?limit=50&tenant_id=${encodeURIComponent(e)}`),[c,p]=_(),d=async i=>{i.preventDefault();let s=i.target,$=new FormData(s),l={email:$.get("email"),name:$.get("name"),password:$.get("password"),role:"user",tenant_id:e};await p(()=>b("POST","/api/resources/users",l))&&(s.reset(),a())},u=i=>p(()=>b("DELETE",`/api/resources/users/${encodeURIComponent(i.id)}`)).then(a);return n`<${S} id="users-part" title="Users">
    <${h} error=${o||c} />
    ${t&&(t.items.length===0?n`<p>No users yet.</p>`:n`<div class="table-wrap"><table>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Second factor</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(i=>n`<tr key=${i.id} data-user=${i.email}><td>${i.email}</td><td>${i.name}</td>
        <td>${i.totp_enabled?"on":"off"}${i.disabled?" (disabled)":""}</td>
        <td><${P} name="delete-user" label="Delete" yes="Yes, delete" question=${`Delete ${i.email}?`} onYes=${()=>u(i)} /></td></tr>`)}</tbody>
    </table></div>`)}
    ${r}
    <form onSubmit=${d} aria-label="New user">
      <div class="grid">
        <${f} name="email" label="E-mail" error=${c} type="email" required autocomplete="off" />
        <${f} name="name" label="Name" error=${c} required />
        <${f} name="password" label="Password" error=${c} type="password" required autocomplete="new-password" />
      </div>
      <button type="submit">Add user</button>
    </form>
  <//>`}var F=e=>`${e}T00:00:00Z`,I=e=>e.toISOString().slice(0,10);function A({path:e}){let t=new Date,[o,a]=m({from:I(new Date(Date.UTC(t.getUTCFullYear(),t.getUTCMonth(),1))),to:I(t)}),[r,c]=m(null),[p,d]=m(null);w(()=>{let s=new Date(F(o.to));s.setUTCDate(s.getUTCDate()+1);let $=new URLSearchParams({from:F(o.from),to:s.toISOString().replace(".000","")});d(null),b("GET",`${e}${e.includes("?")?"&":"?"}${$}`).then(c,d)},[e,o]);let u=s=>{s.preventDefault();let $=new FormData(s.target);a({from:$.get("from"),to:$.get("to")})},i=(s,$)=>n`<tr key=${s.machine_id||"total"}>${$?n`<th scope="row">Total</th>`:n`<td>${s.name}</td>`}
    <td>${s.hours}</td><td>${s.core_hours}</td><td>${s.memory_mb_hours}</td><td>${s.disk_gb_hours}</td>
    <td>${s.backup_hours}</td><td>${s.snapshot_hours}</td><td>${D(s.traffic_in_bytes)}</td><td>${D(s.traffic_out_bytes)}</td></tr>`;return n`<${S} id="usage-part" title="Usage">
    <form onSubmit=${u} aria-label="Usage period" class="inline-form">
      <${f} name="from" label="From (UTC)" error=${p} type="date" defaultValue=${o.from} required />
      <${f} name="to" label="To, included" error=${p} type="date" defaultValue=${o.to} required />
      <button type="submit">Show</button>
    </form>
    <${h} error=${p} />
    ${r&&n`<div class="table-wrap"><table data-usage>
      <caption>From ${v(r.from)} to ${v(r.to)}${r.gaps?`, ${r.gaps} hours without a sample`:""}</caption>
      <thead><tr><th scope="col">Machine</th><th scope="col">Hours</th><th scope="col">Core hours</th><th scope="col">Memory MB hours</th><th scope="col">Disk GB hours</th>
        <th scope="col">Backup hours</th><th scope="col">Snapshot hours</th><th scope="col">Traffic in</th><th scope="col">Traffic out</th></tr></thead>
      <tbody>${r.lines.map(s=>i(s))}</tbody>
      <tfoot>${i(r.totals,!0)}</tfoot>
    </table></div>`}
  <//>`}export{te as Tenant,ee as Tenants,A as Usage};
