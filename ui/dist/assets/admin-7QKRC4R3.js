import{u as G}from"./chunk-D4TO5GDS.js";import{a as D}from"./chunk-AX76OU66.js";import{b as M,c as A}from"./chunk-QCUTTXXJ.js";import{b as U}from"./chunk-MIMHD4HQ.js";import"./chunk-YQSPOLJD.js";import{a as O,e as j}from"./chunk-PBPSO6V7.js";import{a as F}from"./chunk-HOYY2OMK.js";import{a as c,b as f,g as P,h as k,j as R,l as b,n as _,o as w,p as C,q as S,r as h,t as E,u as v}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var H=D(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),L=(t,a)=>`/admin/machines/${encodeURIComponent(t)}${a?`?tenant=${encodeURIComponent(a)}`:""}`,q=["","provisioning","running","stopped","suspended","migrating","error"],V=[["name","Name"],["status","Status"],["node","Node"],["tenant_id","Tenant"]],K=(t,a)=>(s,i)=>a*String(s[t]??"").localeCompare(String(i[t]??""),void 0,{numeric:!0}),Y=({k:t,label:a,sort:s,setSort:i})=>{let e=s.key===t;return n`<th scope="col" aria-sort=${e?s.dir>0?"ascending":"descending":void 0}>
    <button type="button" class="sort" data-sort=${t} onClick=${()=>i({key:t,dir:e?-s.dir:1})}>${a}${e?s.dir>0?" ▲":" ▼":""}</button></th>`};function pt(){let[t,a]=c({name:"",status:"",node:"",tenant_id:""}),[s,i]=c([""]),[e,l]=c(null),[o,u]=c(null),d=s[s.length-1],[m,y]=c({key:"",dir:1}),z=e&&(m.key?[...e.items].sort(K(m.key,m.dir)):e.items),{names:B}=M();return f(()=>{let r=new URLSearchParams({limit:"50"});for(let[p,$]of Object.entries(t))$&&r.set(p,$);d&&r.set("cursor",d),u(null),b("GET",`/api/resources/machines?${r}`).then(l,u)},[t,d]),f(()=>U((r,p)=>{r==="machine.updated"&&l($=>$&&{...$,items:$.items.map(g=>g.id===p.id?{...g,...p}:g)}),r==="machine.deleted"&&l($=>$&&{...$,items:$.items.filter(g=>g.id!==p.id)})}),[]),n`<main id="main">
    <h1>All machines</h1>
    <${G} admin onCreated=${r=>l(p=>p&&{...p,items:[r.machine,...p.items.filter($=>$.id!==r.machine.id)]})} />
    <form class="filters" onSubmit=${r=>{r.preventDefault();let p=new FormData(r.target);a(Object.fromEntries(Object.keys(t).map($=>[$,(p.get($)||"").trim()]))),i([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${q.map(r=>n`<option value=${r}>${r||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${h} error=${o} />
    ${e&&n`<div class="table-wrap" tabindex="0"><table data-machines>
      <caption class="sr-only">Machines${m.key?", this page sorted":""}</caption>
      <thead><tr>${V.map(([r,p])=>n`<${Y} k=${r} label=${p} sort=${m} setSort=${y} />`)}<th scope="col">Location</th><th scope="col">Size</th></tr></thead>
      <tbody>${z.map(r=>n`<tr key=${r.id}><td><a href=${L(r.id,r.tenant_id)}>${r.name}</a></td><td><${S} value=${r.status} /></td>
        <td>${r.node}</td><td>${r.tenant_id?n`<a href=${`/admin/tenants/${encodeURIComponent(r.tenant_id)}`}>${r.tenant_id}</a>`:n`<${W} m=${r} onAssigned=${p=>l($=>$&&{...$,items:$.items.map(g=>g.id===p.id?{...g,...p}:g)})} />`}</td>
        <td data-location>${A(B,r.location_id)}</td><td>${r.cpu_cores} CPU, ${_(r.memory_mb)}, ${w(r.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&n`<p>No machine${Object.values(t).some(Boolean)?" matches":"s yet"}.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${s.length===1} onClick=${()=>i(s.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>i([...s,e.next_cursor])}>Next</button>
      <span class="muted" data-page-number>Page ${s.length}${m.key?", sorted on this page":""}</span>
    </nav>`}
  </main>`}function W({m:t,onAssigned:a}){let[s,i]=c(!1),[e,l]=c(null),o=O(s?j:null),u=async d=>{d.preventDefault(),l(null);try{a(await b("PATCH",`/api/resources/machines/${encodeURIComponent(t.id)}`,{tenant_id:String(new FormData(d.target).get("tenant_id"))})),i(!1)}catch(m){l(m)}};return s?n`<form class="inline-form" onSubmit=${u} aria-label=${`Give ${t.name} to a tenant`}>
    <${h} error=${e||o?.error} />
    <label class="field"><span>Tenant</span><select name="tenant_id" required>
      ${(o?.items||[]).map(d=>n`<option value=${d.id}>${d.name}</option>`)}</select></label>
    <button type="submit">Give</button> <button type="button" onClick=${()=>i(!1)}>Cancel</button>
  </form>`:n`<button type="button" data-assign=${t.name} onClick=${()=>i(!0)}>Give to a tenant</button>`}var x=(t,a)=>a>0?`${Math.round(100*t/a)}%`:"";function mt(){let[t,a]=c(0);return n`<main id="main">
    <h1>Nodes</h1>
    <${J} onDone=${()=>a(s=>s+1)} />
    <${X} />
    <${I} key=${t} />
  </main>`}function X(){let[t,a]=c(!1),[s,i]=c(""),[e,l]=c(null);return n`<div>
    <button type="button" data-store-backup disabled=${t} onClick=${async()=>{a(!0),l(null),i("");try{let u=()=>fetch("/api/admin/backup",{headers:{Authorization:`Bearer ${P.value.token}`,"X-Vmplane-CSRF":"1"}}),d=await u();if(d.status===401&&(await R(),d=await u()),!d.ok)throw new k(await d.json().catch(()=>({})),d.status);let m=await d.blob(),y=document.createElement("a");y.href=URL.createObjectURL(m),y.download=`vmplane-store-${new Date().toISOString().replace(/[:.]/g,"-")}.backup`,document.body.append(y),y.click(),y.remove(),setTimeout(()=>URL.revokeObjectURL(y.href),6e4),i(`Saved ${y.download} (${E(m.size)}).`)}catch(u){l(u instanceof k?u:new k({title:"The backup broke off",detail:String(u.message||u)},0))}finally{a(!1)}}}>${t?"Taking the backup…":"Download a backup of the store"}</button>
    <${h} error=${e} />
    <p role="status" data-store-saved>${s}</p>
  </div>`}function J({onDone:t}){let[a,s]=c(null),[i,e]=c(!1),[l,o]=c(null);return n`<div>
    <button type="button" data-sync disabled=${i} onClick=${async()=>{e(!0),o(null),s(null);try{s(await b("POST","/api/virt/sync")),t()}catch(d){o(d)}finally{e(!1)}}}>${i?"Syncing…":"Sync with the hypervisor now"}</button>
    <${h} error=${l} />
    <p role="status" data-synced>${a?`Synced in ${a.duration_ms} ms: ${a.nodes} nodes; machines ${a.machines.added} added, ${a.machines.updated} updated, ${a.machines.removed} removed; backups ${a.backups?.adopted??0} adopted, ${a.backups?.removed??0} removed${a.locations_unavailable?.length?`; not answering: ${a.locations_unavailable.join(", ")}`:""}.`:""}</p>
  </div>`}function I(){let[t,a]=c(null),[s,i]=c(null);return f(()=>{b("GET","/api/virt/nodes?limit=500").then(a,i)},[]),n`<div>
    <${h} error=${s} />
    ${t&&n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>n`<tr key=${e.id}><td>${e.name}</td><td><${S} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${_(e.memory_mb)}, ${x(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${w(e.disk_gb)}, ${x(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var T=t=>t==null?"":`${Math.round(t*100)}%`;function ht(){let[t,a]=c(null),[s,i]=c(null);return f(()=>{b("GET","/api/monitoring/overview").then(a,i)},[]),n`<main id="main">
    <h1>Dashboard</h1>
    <${h} error=${s} />
    ${t&&n`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?n`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${T(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${T(t.capacity.memory.ratio)}</strong> (${_(t.capacity.memory.used_mb)}/${_(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${T(t.capacity.disk.ratio)}</strong> (${w(t.capacity.disk.used_gb)}/${w(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${Q} />
    <${v} id="dash-nodes" title="Nodes"><${I} /><//>
    <${v} id="dash-graphs" title="Cluster usage"><${H} url="/api/virt/cluster/usage-graphs" /><//>
    <${Z} />
    <${tt} />
    <${et} />
  </main>`}function Q(){let[t,a]=c(null),[s,i]=c(null);f(()=>{fetch("/api/health",{cache:"no-store"}).then(l=>l.json()).then(a,l=>i(new k({title:"No answer from /api/health",detail:String(l.message||l)},0)))},[]);let e=t?Object.entries(t.checks||{}).flatMap(([l,o])=>o&&typeof o=="object"?Object.entries(o).map(([u,d])=>[`location ${u}`,d]):[[l,o]]):[];return n`<${h} error=${s} />
    ${t&&n`<p data-server=${t.status}>Server <span class=${`badge s-${t.status==="ok"?"running":"error"}`}>${t.status}</span>
      version ${t.version}, up ${Math.floor(t.uptime_s/3600)} h ${Math.floor(t.uptime_s%3600/60)} min;
      ${e.map(([l,o],u)=>n`${u?", ":""}<span data-check-of=${l}>${l} ${o}</span>`)}.</p>`}`}function Z(){let[t,a]=c(null),[s,i]=c(null),e=()=>Promise.all(["firing","acknowledged"].map(o=>b("GET",`/api/monitoring/alerts/events?status=${o}&limit=200`))).then(([o,u])=>a([...o.items,...u.items]),i);f(()=>{e()},[]);let l=o=>b("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(o.id)}`,{status:"acknowledged"}).then(e,i);return n`<${v} id="dash-alerts" title="Open alerts">
    <${h} error=${s} />
    ${t&&(t.length===0?n`<p>No open alerts.</p>`:n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(o=>n`<tr key=${o.id} data-alert=${o.id}><td><span class=${`badge sev-${o.severity}`}>${o.severity}</span></td>
        <td>${o.message} <span class="muted">${o.kind} ${o.target_type} ${o.target_id}</span></td><td>${C(o.started_at)}</td>
        <td><${S} value=${o.status} /></td>
        <td>${o.status==="firing"?n`<${F} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>l(o)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var N=(t,a)=>t.unit==="bytes"?E(a):`${a.toFixed(1)} ${t.unit}`;function tt(){let[t,a]=c(null),[s,i]=c(null);return f(()=>{b("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(a,i)},[]),n`<${v} id="dash-forecast" title="Capacity forecast (90 days)">
    <${h} error=${s} />
    ${t&&n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>n`<tr key=${e.resource}><td>${e.resource}</td><td>${N(e,e.used)}</td><td>${N(e,e.capacity)}</td>
        <td>${N(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function et(){let[t,a]=c(null),[s,i]=c(null);return f(()=>{b("GET","/api/monitoring/insights/faulty-deployments").then(a,i)},[]),n`<${v} id="dash-faulty" title="Faulty deployments">
    <${h} error=${s} />
    ${t&&(t.items.length===0?n`<p>None.</p>`:n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>n`<tr key=${e.machine_id}><td><a href=${L(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${C(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{pt as AdminMachines,ht as Dashboard,mt as Nodes};
