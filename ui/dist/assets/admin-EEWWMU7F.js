import{q as O}from"./chunk-JFLN2QMG.js";import{a as G}from"./chunk-AX76OU66.js";import{b as U}from"./chunk-MIMHD4HQ.js";import"./chunk-YQSPOLJD.js";import{a as D,e as A}from"./chunk-PBPSO6V7.js";import{a as F}from"./chunk-HOYY2OMK.js";import{a as l,b as f,g as R,h as w,j as N,l as h,n as k,o as _,p as C,q as S,r as b,t as E,u as v}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var L=G(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),M=(t,a)=>`/admin/machines/${encodeURIComponent(t)}${a?`?tenant=${encodeURIComponent(a)}`:""}`,z=["","provisioning","running","stopped","suspended","migrating","error"],B=[["name","Name"],["status","Status"],["node","Node"],["tenant_id","Tenant"]],q=(t,a)=>(s,r)=>a*String(s[t]??"").localeCompare(String(r[t]??""),void 0,{numeric:!0}),H=({k:t,label:a,sort:s,setSort:r})=>{let e=s.key===t;return n`<th scope="col" aria-sort=${e?s.dir>0?"ascending":"descending":void 0}>
    <button type="button" class="sort" data-sort=${t} onClick=${()=>r({key:t,dir:e?-s.dir:1})}>${a}${e?s.dir>0?" ▲":" ▼":""}</button></th>`};function lt(){let[t,a]=l({name:"",status:"",node:"",tenant_id:""}),[s,r]=l([""]),[e,$]=l(null),[i,p]=l(null),d=s[s.length-1],[m,y]=l({key:"",dir:1}),I=e&&(m.key?[...e.items].sort(q(m.key,m.dir)):e.items);return f(()=>{let o=new URLSearchParams({limit:"50"});for(let[u,c]of Object.entries(t))c&&o.set(u,c);d&&o.set("cursor",d),p(null),h("GET",`/api/resources/machines?${o}`).then($,p)},[t,d]),f(()=>U((o,u)=>{o==="machine.updated"&&$(c=>c&&{...c,items:c.items.map(g=>g.id===u.id?{...g,...u}:g)}),o==="machine.deleted"&&$(c=>c&&{...c,items:c.items.filter(g=>g.id!==u.id)})}),[]),n`<main id="main">
    <h1>All machines</h1>
    <${O} admin onCreated=${o=>$(u=>u&&{...u,items:[o.machine,...u.items.filter(c=>c.id!==o.machine.id)]})} />
    <form class="filters" onSubmit=${o=>{o.preventDefault();let u=new FormData(o.target);a(Object.fromEntries(Object.keys(t).map(c=>[c,(u.get(c)||"").trim()]))),r([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${z.map(o=>n`<option value=${o}>${o||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${b} error=${i} />
    ${e&&n`<div class="table-wrap" tabindex="0"><table data-machines>
      <caption class="sr-only">Machines${m.key?", this page sorted":""}</caption>
      <thead><tr>${B.map(([o,u])=>n`<${H} k=${o} label=${u} sort=${m} setSort=${y} />`)}<th scope="col">Size</th></tr></thead>
      <tbody>${I.map(o=>n`<tr key=${o.id}><td><a href=${M(o.id,o.tenant_id)}>${o.name}</a></td><td><${S} value=${o.status} /></td>
        <td>${o.node}</td><td>${o.tenant_id?n`<a href=${`/admin/tenants/${encodeURIComponent(o.tenant_id)}`}>${o.tenant_id}</a>`:n`<${V} m=${o} onAssigned=${u=>$(c=>c&&{...c,items:c.items.map(g=>g.id===u.id?{...g,...u}:g)})} />`}</td><td>${o.cpu_cores} CPU, ${k(o.memory_mb)}, ${_(o.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&n`<p>No machine${Object.values(t).some(Boolean)?" matches":"s yet"}.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${s.length===1} onClick=${()=>r(s.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>r([...s,e.next_cursor])}>Next</button>
      <span class="muted" data-page-number>Page ${s.length}${m.key?", sorted on this page":""}</span>
    </nav>`}
  </main>`}function V({m:t,onAssigned:a}){let[s,r]=l(!1),[e,$]=l(null),i=D(s?A:null),p=async d=>{d.preventDefault(),$(null);try{a(await h("PATCH",`/api/resources/machines/${encodeURIComponent(t.id)}`,{tenant_id:String(new FormData(d.target).get("tenant_id"))})),r(!1)}catch(m){$(m)}};return s?n`<form class="inline-form" onSubmit=${p} aria-label=${`Give ${t.name} to a tenant`}>
    <${b} error=${e||i?.error} />
    <label class="field"><span>Tenant</span><select name="tenant_id" required>
      ${(i?.items||[]).map(d=>n`<option value=${d.id}>${d.name}</option>`)}</select></label>
    <button type="submit">Give</button> <button type="button" onClick=${()=>r(!1)}>Cancel</button>
  </form>`:n`<button type="button" data-assign=${t.name} onClick=${()=>r(!0)}>Give to a tenant</button>`}var x=(t,a)=>a>0?`${Math.round(100*t/a)}%`:"";function ct(){let[t,a]=l(0);return n`<main id="main">
    <h1>Nodes</h1>
    <${Y} onDone=${()=>a(s=>s+1)} />
    <${K} />
    <${j} key=${t} />
  </main>`}function K(){let[t,a]=l(!1),[s,r]=l(""),[e,$]=l(null);return n`<div>
    <button type="button" data-store-backup disabled=${t} onClick=${async()=>{a(!0),$(null),r("");try{let p=()=>fetch("/api/admin/backup",{headers:{Authorization:`Bearer ${R.value.token}`,"X-Vmplane-CSRF":"1"}}),d=await p();if(d.status===401&&(await N(),d=await p()),!d.ok)throw new w(await d.json().catch(()=>({})),d.status);let m=await d.blob(),y=document.createElement("a");y.href=URL.createObjectURL(m),y.download=`vmplane-store-${new Date().toISOString().replace(/[:.]/g,"-")}.backup`,document.body.append(y),y.click(),y.remove(),setTimeout(()=>URL.revokeObjectURL(y.href),6e4),r(`Saved ${y.download} (${E(m.size)}).`)}catch(p){$(p instanceof w?p:new w({title:"The backup broke off",detail:String(p.message||p)},0))}finally{a(!1)}}}>${t?"Taking the backup…":"Download a backup of the store"}</button>
    <${b} error=${e} />
    <p role="status" data-store-saved>${s}</p>
  </div>`}function Y({onDone:t}){let[a,s]=l(null),[r,e]=l(!1),[$,i]=l(null);return n`<div>
    <button type="button" data-sync disabled=${r} onClick=${async()=>{e(!0),i(null),s(null);try{s(await h("POST","/api/virt/sync")),t()}catch(d){i(d)}finally{e(!1)}}}>${r?"Syncing…":"Sync with the hypervisor now"}</button>
    <${b} error=${$} />
    <p role="status" data-synced>${a?`Synced in ${a.duration_ms} ms: ${a.nodes} nodes; machines ${a.machines.added} added, ${a.machines.updated} updated, ${a.machines.removed} removed; backups ${a.backups?.adopted??0} adopted, ${a.backups?.removed??0} removed${a.locations_unavailable?.length?`; not answering: ${a.locations_unavailable.join(", ")}`:""}.`:""}</p>
  </div>`}function j(){let[t,a]=l(null),[s,r]=l(null);return f(()=>{h("GET","/api/virt/nodes?limit=500").then(a,r)},[]),n`<div>
    <${b} error=${s} />
    ${t&&n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>n`<tr key=${e.id}><td>${e.name}</td><td><${S} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${k(e.memory_mb)}, ${x(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${_(e.disk_gb)}, ${x(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var T=t=>t==null?"":`${Math.round(t*100)}%`;function dt(){let[t,a]=l(null),[s,r]=l(null);return f(()=>{h("GET","/api/monitoring/overview").then(a,r)},[]),n`<main id="main">
    <h1>Dashboard</h1>
    <${b} error=${s} />
    ${t&&n`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?n`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${T(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${T(t.capacity.memory.ratio)}</strong> (${k(t.capacity.memory.used_mb)}/${k(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${T(t.capacity.disk.ratio)}</strong> (${_(t.capacity.disk.used_gb)}/${_(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${v} id="dash-nodes" title="Nodes"><${j} /><//>
    <${v} id="dash-graphs" title="Cluster usage"><${L} url="/api/virt/cluster/usage-graphs" /><//>
    <${W} />
    <${X} />
    <${J} />
  </main>`}function W(){let[t,a]=l(null),[s,r]=l(null),e=()=>Promise.all(["firing","acknowledged"].map(i=>h("GET",`/api/monitoring/alerts/events?status=${i}&limit=200`))).then(([i,p])=>a([...i.items,...p.items]),r);f(()=>{e()},[]);let $=i=>h("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(i.id)}`,{status:"acknowledged"}).then(e,r);return n`<${v} id="dash-alerts" title="Open alerts">
    <${b} error=${s} />
    ${t&&(t.length===0?n`<p>No open alerts.</p>`:n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(i=>n`<tr key=${i.id} data-alert=${i.id}><td><span class=${`badge sev-${i.severity}`}>${i.severity}</span></td>
        <td>${i.message} <span class="muted">${i.kind} ${i.target_type} ${i.target_id}</span></td><td>${C(i.started_at)}</td>
        <td><${S} value=${i.status} /></td>
        <td>${i.status==="firing"?n`<${F} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>$(i)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var P=(t,a)=>t.unit==="bytes"?E(a):`${a.toFixed(1)} ${t.unit}`;function X(){let[t,a]=l(null),[s,r]=l(null);return f(()=>{h("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(a,r)},[]),n`<${v} id="dash-forecast" title="Capacity forecast (90 days)">
    <${b} error=${s} />
    ${t&&n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>n`<tr key=${e.resource}><td>${e.resource}</td><td>${P(e,e.used)}</td><td>${P(e,e.capacity)}</td>
        <td>${P(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function J(){let[t,a]=l(null),[s,r]=l(null);return f(()=>{h("GET","/api/monitoring/insights/faulty-deployments").then(a,r)},[]),n`<${v} id="dash-faulty" title="Faulty deployments">
    <${b} error=${s} />
    ${t&&(t.items.length===0?n`<p>None.</p>`:n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>n`<tr key=${e.machine_id}><td><a href=${M(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${C(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{lt as AdminMachines,dt as Dashboard,ct as Nodes};
