import{a as D,b as k,c as S}from"./chunk-VXCSWXAY.js";import{a as x}from"./chunk-6PNQ3PEV.js";import{a as h,b as _,k as f,o as w,q as b,r as $,s as q,t as g}from"./chunk-FIHVQ2RM.js";import{g as a}from"./chunk-XGWGEZEQ.js";var T="/api/resources/tenants",I=e=>`/admin/tenants/${encodeURIComponent(e)}`,C=[["machines","Machines"],["cpu_cores","CPU cores"],["memory_mb","Memory (MB)"],["disk_gb","Disk (GB)"],["backups","Backups"],["backup_gb","Backup space (GB)"],["snapshots","Snapshots"]],v=e=>e<0?"unlimited":String(e),N=({t:e})=>e.suspension?a`<span class="badge s-suspended" data-state="suspended">suspended</span> <span data-reason>${e.suspension.reason}</span>`:a`<span class="badge s-running" data-state="active">active</span>`,P=e=>e&&{...e,fields:Object.fromEntries(Object.entries(e.fields).map(([t,s])=>[t.replace(/^(body\.)?quota\./,""),s]))},B=({q:e,error:t})=>{let s=P(t);return a`<fieldset><legend>Quotas (-1 is unlimited${e?"":", blank the default"})</legend><div class="grid">
  ${C.map(([c,o])=>a`<${$} name=${c} label=${o} error=${s} type="number" min="-1" defaultValue=${e?e[c]:void 0} />`)}
</div></fieldset>`};function Z(){let{page:e,error:t,reload:s,pager:c}=D(`${T}?limit=50`),[o,d]=h(""),[p,u]=h(!1),[l,r]=S(),n=(e?.items||[]).filter(i=>i.name.toLowerCase().includes(o.trim().toLowerCase()));return a`<main id="main">
    <h1>Tenants</h1>
    ${p?a`<form class="card" onSubmit=${async i=>{i.preventDefault();let y=new FormData(i.target),U={name:y.get("name"),require_totp:y.get("require_totp")==="on",quota:k(y,C.map(([M])=>M))};y.get("external_id")&&(U.external_id=y.get("external_id")),await r(()=>f("POST",T,U))&&(u(!1),s())}} aria-label="New tenant">
          <${b} error=${l} />
          <div class="grid">
            <${$} name="name" label="Name" error=${l} required maxlength="100" />
            <${$} name="external_id" label="External id (optional)" error=${l} maxlength="128" />
          </div>
          <label class="check"><input type="checkbox" name="require_totp" /> Its users must use a second factor</label>
          <${B} error=${l} />
          <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>u(!1)}>Cancel</button>
        </form>`:a`<button class="primary" onClick=${()=>u(!0)}>New tenant</button>`}
    <form class="filters" role="search" aria-label="Filter tenants" onSubmit=${i=>i.preventDefault()}>
      <label class="field"><span>Name contains (this page)</span><input name="filter" value=${o} onInput=${i=>d(i.target.value)} /></label>
    </form>
    <${b} error=${t} />
    ${e&&a`<div class="table-wrap"><table>
      <caption class="sr-only">Tenants</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Machines</th><th scope="col">CPU</th><th scope="col">Memory (MB)</th><th scope="col">Disk (GB)</th></tr></thead>
      <tbody>${n.map(i=>a`<tr key=${i.id} data-tenant=${i.name}><td><a href=${I(i.id)}>${i.name}</a></td><td><${N} t=${i} /></td>
        <td>${v(i.quota.machines)}</td><td>${v(i.quota.cpu_cores)}</td><td>${v(i.quota.memory_mb)}</td><td>${v(i.quota.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${n.length===0&&a`<p>No tenant${o?" of that name on this page":""}.</p>`}
    ${c}`}
  </main>`}function z({id:e}){let[t,s]=h(null),[c,o]=h(null),d=`${T}/${encodeURIComponent(e)}`;return _(()=>{f("GET",d).then(s,o)},[d]),a`<main id="main">
    <p><a href="/admin/tenants">All tenants</a></p>
    <h1>${t?a`${t.name} <${N} t=${t} />`:"Tenant"}</h1>
    <${b} error=${c} />
    ${t&&a`
      <dl class="facts">
        <dt>Id</dt><dd>${t.id}</dd>
        ${t.external_id&&a`<dt>External id</dt><dd>${t.external_id}</dd>`}
        <dt>Overview</dt><dd><a href=${`${I(t.id)}/overview`}>its machines, quota use, trends and traffic</a></dd>
        <dt>Second factor</dt><dd>${t.require_totp?"required":"optional"}</dd>
        ${t.suspension&&a`<dt>Suspended</dt><dd data-suspension>since ${w(t.suspension.since)}, machines: ${t.suspension.action}${t.suspension.machines?.length?` (${t.suspension.machines.length})`:""}</dd>`}
      </dl>
      <${O} t=${t} path=${d} onChange=${s} />
      <${R} t=${t} path=${d} onChange=${s} />
      <${G} tenant=${t.id} />
      <${L} path=${`${d}/usage`} />`}
  </main>`}function O({t:e,path:t,onChange:s}){let[c,o]=S(),[d,p]=h(!1),u=async l=>{l.preventDefault(),p(!1);let r=k(new FormData(l.target),C.map(([n])=>n));await o(async()=>s(await f("PATCH",t,{quota:r})))&&p(!0)};return a`<${g} id="quota-part" title="Quotas">
    <${b} error=${c} />
    <form key=${e.updated_at} onSubmit=${u} aria-label="Quotas">
      <${B} q=${e.quota} error=${c} />
      <button type="submit">Save quotas</button> ${d&&a`<span role="status" data-saved>Saved.</span>`}
    </form>
  <//>`}function R({t:e,path:t,onChange:s}){let[c,o]=S(),d=(u,l)=>o(async()=>s(await f("POST",`${t}/${u}`,l)));if(e.suspension){let u=l=>{l.preventDefault(),d("unsuspend",{start:new FormData(l.target).get("start")==="on"})};return a`<${g} id="suspend-part" title="Suspension">
      <${b} error=${c} />
      <p>Suspended since ${w(e.suspension.since)}: <strong>${e.suspension.reason}</strong>.</p>
      <form onSubmit=${u} aria-label="Unsuspend" class="inline-form">
        <label class="check"><input type="checkbox" name="start" /> Start the machines the suspension stopped</label>
        <button type="submit">Unsuspend</button>
      </form>
    <//>`}return a`<${g} id="suspend-part" title="Suspension">
    <${b} error=${c} />
    <p>The tenant is active. Suspended, its users can sign in and read, but change nothing.</p>
    <form onSubmit=${u=>{u.preventDefault();let l=new FormData(u.target);d("suspend",{reason:l.get("reason"),action:l.get("action")})}} aria-label="Suspend" class="inline-form">
      <${$} name="reason" label="Reason" error=${c} required maxlength="500" />
      <label class="field"><span>Its machines</span><select name="action">
        <option value="stop">stop</option><option value="suspend">suspend (keep memory)</option><option value="none">keep running</option>
      </select></label>
      <button type="submit" class="danger">Suspend</button>
    </form>
  <//>`}function G({tenant:e}){let{page:t,error:s,reload:c,pager:o}=D(`/api/resources/users?limit=50&tenant_id=${encodeURIComponent(e)}`),[d,p]=S(),u=async r=>{r.preventDefault();let n=r.target,m=new FormData(n),i={email:m.get("email"),name:m.get("name"),password:m.get("password"),role:"user",tenant_id:e};await p(()=>f("POST","/api/resources/users",i))&&(n.reset(),c())},l=r=>p(()=>f("DELETE",`/api/resources/users/${encodeURIComponent(r.id)}`)).then(c);return a`<${g} id="users-part" title="Users">
    <${b} error=${s||d} />
    ${t&&(t.items.length===0?a`<p>No users yet.</p>`:a`<div class="table-wrap"><table>
      <thead><tr><th scope="col">E-mail</th><th scope="col">Name</th><th scope="col">Second factor</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(r=>a`<tr key=${r.id} data-user=${r.email}><td>${r.email}</td><td>${r.name}</td>
        <td>${r.totp_enabled?"on":"off"}${r.disabled?" (disabled)":""}</td>
        <td><${x} name="delete-user" label="Delete" yes="Yes, delete" question=${`Delete ${r.email}?`} onYes=${()=>l(r)} /></td></tr>`)}</tbody>
    </table></div>`)}
    ${o}
    <form onSubmit=${u} aria-label="New user">
      <div class="grid">
        <${$} name="email" label="E-mail" error=${d} type="email" required autocomplete="off" />
        <${$} name="name" label="Name" error=${d} required />
        <${$} name="password" label="Password" error=${d} type="password" required autocomplete="new-password" />
      </div>
      <button type="submit">Add user</button>
    </form>
  <//>`}var E=e=>`${e}T00:00:00Z`,F=e=>e.toISOString().slice(0,10);function L({path:e}){let t=new Date,[s,c]=h({from:F(new Date(Date.UTC(t.getUTCFullYear(),t.getUTCMonth(),1))),to:F(t)}),[o,d]=h(null),[p,u]=h(null);_(()=>{let n=new Date(E(s.to));n.setUTCDate(n.getUTCDate()+1);let m=new URLSearchParams({from:E(s.from),to:n.toISOString().replace(".000","")});u(null),f("GET",`${e}${e.includes("?")?"&":"?"}${m}`).then(d,u)},[e,s]);let l=n=>{n.preventDefault();let m=new FormData(n.target);c({from:m.get("from"),to:m.get("to")})},r=(n,m)=>a`<tr key=${n.machine_id||"total"}>${m?a`<th scope="row">Total</th>`:a`<td>${n.name}</td>`}
    <td>${n.hours}</td><td>${n.core_hours}</td><td>${n.memory_mb_hours}</td><td>${n.disk_gb_hours}</td>
    <td>${n.backup_hours}</td><td>${n.snapshot_hours}</td><td>${q(n.traffic_in_bytes)}</td><td>${q(n.traffic_out_bytes)}</td></tr>`;return a`<${g} id="usage-part" title="Usage">
    <form onSubmit=${l} aria-label="Usage period" class="inline-form">
      <${$} name="from" label="From (UTC)" error=${p} type="date" defaultValue=${s.from} required />
      <${$} name="to" label="To, included" error=${p} type="date" defaultValue=${s.to} required />
      <button type="submit">Show</button>
    </form>
    <${b} error=${p} />
    ${o&&a`<p id="usage-period">From ${w(o.from)} to ${w(o.to)}${o.gaps?`, ${o.gaps} hours not counted (no run closed them)`:""}.</p>
    <div class="table-wrap"><table data-usage aria-describedby="usage-period">
      <thead><tr><th scope="col">Machine</th><th scope="col">Hours</th><th scope="col">Core hours</th><th scope="col">Memory MB hours</th><th scope="col">Disk GB hours</th>
        <th scope="col">Backup hours</th><th scope="col">Snapshot hours</th><th scope="col">Traffic in</th><th scope="col">Traffic out</th></tr></thead>
      <tbody>${o.lines.map(n=>r(n))}</tbody>
      <tfoot>${r(o.totals,!0)}</tfoot>
    </table></div>`}
  <//>`}export{z as Tenant,Z as Tenants,L as Usage};
