import{q as D}from"./chunk-KYI52F5N.js";import{b as U}from"./chunk-MIMHD4HQ.js";import"./chunk-ZZQYSPDV.js";import{a as x}from"./chunk-AX76OU66.js";import"./chunk-YQSPOLJD.js";import{a as F}from"./chunk-HOYY2OMK.js";import{a as c,b as g,g as P,h as w,j as R,l as b,n as v,o as _,p as C,q as S,r as y,t as E,u as f}from"./chunk-E4PU34WH.js";import{g as o}from"./chunk-XGWGEZEQ.js";var G=x(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),M=(t,a)=>`/admin/machines/${encodeURIComponent(t)}${a?`?tenant=${encodeURIComponent(a)}`:""}`,I=["","provisioning","running","stopped","suspended","migrating","error"],L=[["name","Name"],["status","Status"],["node","Node"],["tenant_id","Tenant"]],z=(t,a)=>(s,r)=>a*String(s[t]??"").localeCompare(String(r[t]??""),void 0,{numeric:!0}),B=({k:t,label:a,sort:s,setSort:r})=>{let e=s.key===t;return o`<th scope="col" aria-sort=${e?s.dir>0?"ascending":"descending":void 0}>
    <button type="button" class="sort" data-sort=${t} onClick=${()=>r({key:t,dir:e?-s.dir:1})}>${a}${e?s.dir>0?" ▲":" ▼":""}</button></th>`};function nt(){let[t,a]=c({name:"",status:"",node:"",tenant_id:""}),[s,r]=c([""]),[e,p]=c(null),[i,d]=c(null),$=s[s.length-1],[h,m]=c({key:"",dir:1}),A=e&&(h.key?[...e.items].sort(z(h.key,h.dir)):e.items);return g(()=>{let n=new URLSearchParams({limit:"50"});for(let[u,l]of Object.entries(t))l&&n.set(u,l);$&&n.set("cursor",$),d(null),b("GET",`/api/resources/machines?${n}`).then(p,d)},[t,$]),g(()=>U((n,u)=>{n==="machine.updated"&&p(l=>l&&{...l,items:l.items.map(k=>k.id===u.id?{...k,...u}:k)}),n==="machine.deleted"&&p(l=>l&&{...l,items:l.items.filter(k=>k.id!==u.id)})}),[]),o`<main id="main">
    <h1>All machines</h1>
    <${D} admin onCreated=${n=>p(u=>u&&{...u,items:[n.machine,...u.items.filter(l=>l.id!==n.machine.id)]})} />
    <form class="filters" onSubmit=${n=>{n.preventDefault();let u=new FormData(n.target);a(Object.fromEntries(Object.keys(t).map(l=>[l,(u.get(l)||"").trim()]))),r([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${I.map(n=>o`<option value=${n}>${n||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${y} error=${i} />
    ${e&&o`<div class="table-wrap" tabindex="0"><table data-machines>
      <caption class="sr-only">Machines${h.key?", this page sorted":""}</caption>
      <thead><tr>${L.map(([n,u])=>o`<${B} k=${n} label=${u} sort=${h} setSort=${m} />`)}<th scope="col">Size</th></tr></thead>
      <tbody>${A.map(n=>o`<tr key=${n.id}><td><a href=${M(n.id,n.tenant_id)}>${n.name}</a></td><td><${S} value=${n.status} /></td>
        <td>${n.node}</td><td>${n.tenant_id?o`<a href=${`/admin/tenants/${encodeURIComponent(n.tenant_id)}`}>${n.tenant_id}</a>`:""}</td><td>${n.cpu_cores} CPU, ${v(n.memory_mb)}, ${_(n.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&o`<p>No machine${Object.values(t).some(Boolean)?" matches":"s yet"}.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${s.length===1} onClick=${()=>r(s.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>r([...s,e.next_cursor])}>Next</button>
      <span class="muted" data-page-number>Page ${s.length}${h.key?", sorted on this page":""}</span>
    </nav>`}
  </main>`}var O=(t,a)=>a>0?`${Math.round(100*t/a)}%`:"";function ot(){let[t,a]=c(0);return o`<main id="main">
    <h1>Nodes</h1>
    <${q} onDone=${()=>a(s=>s+1)} />
    <${V} />
    <${j} key=${t} />
  </main>`}function V(){let[t,a]=c(!1),[s,r]=c(""),[e,p]=c(null);return o`<div>
    <button type="button" data-store-backup disabled=${t} onClick=${async()=>{a(!0),p(null),r("");try{let d=()=>fetch("/api/admin/backup",{headers:{Authorization:`Bearer ${P.value.token}`,"X-Vmplane-CSRF":"1"}}),$=await d();if($.status===401&&(await R(),$=await d()),!$.ok)throw new w(await $.json().catch(()=>({})),$.status);let h=await $.blob(),m=document.createElement("a");m.href=URL.createObjectURL(h),m.download=`vmplane-store-${new Date().toISOString().replace(/[:.]/g,"-")}.backup`,document.body.append(m),m.click(),m.remove(),setTimeout(()=>URL.revokeObjectURL(m.href),6e4),r(`Saved ${m.download} (${E(h.size)}).`)}catch(d){p(d instanceof w?d:new w({title:"The backup broke off",detail:String(d.message||d)},0))}finally{a(!1)}}}>${t?"Taking the backup…":"Download a backup of the store"}</button>
    <${y} error=${e} />
    <p role="status" data-store-saved>${s}</p>
  </div>`}function q({onDone:t}){let[a,s]=c(null),[r,e]=c(!1),[p,i]=c(null);return o`<div>
    <button type="button" data-sync disabled=${r} onClick=${async()=>{e(!0),i(null),s(null);try{s(await b("POST","/api/virt/sync")),t()}catch($){i($)}finally{e(!1)}}}>${r?"Syncing…":"Sync with the hypervisor now"}</button>
    <${y} error=${p} />
    <p role="status" data-synced>${a?`Synced in ${a.duration_ms} ms: ${a.nodes} nodes; machines ${a.machines.added} added, ${a.machines.updated} updated, ${a.machines.removed} removed; backups ${a.backups?.adopted??0} adopted, ${a.backups?.removed??0} removed${a.locations_unavailable?.length?`; not answering: ${a.locations_unavailable.join(", ")}`:""}.`:""}</p>
  </div>`}function j(){let[t,a]=c(null),[s,r]=c(null);return g(()=>{b("GET","/api/virt/nodes?limit=500").then(a,r)},[]),o`<div>
    <${y} error=${s} />
    ${t&&o`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>o`<tr key=${e.id}><td>${e.name}</td><td><${S} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${v(e.memory_mb)}, ${O(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${_(e.disk_gb)}, ${O(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var T=t=>t==null?"":`${Math.round(t*100)}%`;function rt(){let[t,a]=c(null),[s,r]=c(null);return g(()=>{b("GET","/api/monitoring/overview").then(a,r)},[]),o`<main id="main">
    <h1>Dashboard</h1>
    <${y} error=${s} />
    ${t&&o`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?o`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${T(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${T(t.capacity.memory.ratio)}</strong> (${v(t.capacity.memory.used_mb)}/${v(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${T(t.capacity.disk.ratio)}</strong> (${_(t.capacity.disk.used_gb)}/${_(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${f} id="dash-nodes" title="Nodes"><${j} /><//>
    <${f} id="dash-graphs" title="Cluster usage"><${G} url="/api/virt/cluster/usage-graphs" /><//>
    <${H} />
    <${K} />
    <${Y} />
  </main>`}function H(){let[t,a]=c(null),[s,r]=c(null),e=()=>Promise.all(["firing","acknowledged"].map(i=>b("GET",`/api/monitoring/alerts/events?status=${i}&limit=200`))).then(([i,d])=>a([...i.items,...d.items]),r);g(()=>{e()},[]);let p=i=>b("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(i.id)}`,{status:"acknowledged"}).then(e,r);return o`<${f} id="dash-alerts" title="Open alerts">
    <${y} error=${s} />
    ${t&&(t.length===0?o`<p>No open alerts.</p>`:o`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(i=>o`<tr key=${i.id} data-alert=${i.id}><td><span class=${`badge sev-${i.severity}`}>${i.severity}</span></td>
        <td>${i.message} <span class="muted">${i.kind} ${i.target_type} ${i.target_id}</span></td><td>${C(i.started_at)}</td>
        <td><${S} value=${i.status} /></td>
        <td>${i.status==="firing"?o`<${F} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>p(i)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var N=(t,a)=>t.unit==="bytes"?E(a):`${a.toFixed(1)} ${t.unit}`;function K(){let[t,a]=c(null),[s,r]=c(null);return g(()=>{b("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(a,r)},[]),o`<${f} id="dash-forecast" title="Capacity forecast (90 days)">
    <${y} error=${s} />
    ${t&&o`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>o`<tr key=${e.resource}><td>${e.resource}</td><td>${N(e,e.used)}</td><td>${N(e,e.capacity)}</td>
        <td>${N(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function Y(){let[t,a]=c(null),[s,r]=c(null);return g(()=>{b("GET","/api/monitoring/insights/faulty-deployments").then(a,r)},[]),o`<${f} id="dash-faulty" title="Faulty deployments">
    <${y} error=${s} />
    ${t&&(t.items.length===0?o`<p>None.</p>`:o`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>o`<tr key=${e.machine_id}><td><a href=${M(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${C(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{nt as AdminMachines,rt as Dashboard,ot as Nodes};
