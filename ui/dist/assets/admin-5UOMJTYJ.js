import{q as x}from"./chunk-EHC62JZG.js";import{b as N}from"./chunk-MIMHD4HQ.js";import"./chunk-ZZQYSPDV.js";import{a as T}from"./chunk-AX76OU66.js";import"./chunk-JV7NVBOQ.js";import{a as P}from"./chunk-HOYY2OMK.js";import{a as l,b as m,l as $,n as v,o as _,p as S,q as k,r as p,t as E,u as b}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var A=T(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),M=(t,s)=>`/admin/machines/${encodeURIComponent(t)}${s?`?tenant=${encodeURIComponent(s)}`:""}`,D=["","provisioning","running","stopped","suspended","migrating","error"],O=[["name","Name"],["status","Status"],["node","Node"],["tenant_id","Tenant"]],I=(t,s)=>(o,i)=>s*String(o[t]??"").localeCompare(String(i[t]??""),void 0,{numeric:!0}),j=({k:t,label:s,sort:o,setSort:i})=>{let e=o.key===t;return n`<th scope="col" aria-sort=${e?o.dir>0?"ascending":"descending":void 0}>
    <button type="button" class="sort" data-sort=${t} onClick=${()=>i({key:t,dir:e?-o.dir:1})}>${s}${e?o.dir>0?" ▲":" ▼":""}</button></th>`};function tt(){let[t,s]=l({name:"",status:"",node:"",tenant_id:""}),[o,i]=l([""]),[e,u]=l(null),[r,y]=l(null),g=o[o.length-1],[h,U]=l({key:"",dir:1}),G=e&&(h.key?[...e.items].sort(I(h.key,h.dir)):e.items);return m(()=>{let a=new URLSearchParams({limit:"50"});for(let[c,d]of Object.entries(t))d&&a.set(c,d);g&&a.set("cursor",g),y(null),$("GET",`/api/resources/machines?${a}`).then(u,y)},[t,g]),m(()=>N((a,c)=>{a==="machine.updated"&&u(d=>d&&{...d,items:d.items.map(f=>f.id===c.id?{...f,...c}:f)}),a==="machine.deleted"&&u(d=>d&&{...d,items:d.items.filter(f=>f.id!==c.id)})}),[]),n`<main id="main">
    <h1>All machines</h1>
    <${x} admin onCreated=${a=>u(c=>c&&{...c,items:[a.machine,...c.items.filter(d=>d.id!==a.machine.id)]})} />
    <form class="filters" onSubmit=${a=>{a.preventDefault();let c=new FormData(a.target);s(Object.fromEntries(Object.keys(t).map(d=>[d,(c.get(d)||"").trim()]))),i([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${D.map(a=>n`<option value=${a}>${a||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${p} error=${r} />
    ${e&&n`<div class="table-wrap" tabindex="0"><table data-machines>
      <caption class="sr-only">Machines${h.key?", this page sorted":""}</caption>
      <thead><tr>${O.map(([a,c])=>n`<${j} k=${a} label=${c} sort=${h} setSort=${U} />`)}<th scope="col">Size</th></tr></thead>
      <tbody>${G.map(a=>n`<tr key=${a.id}><td><a href=${M(a.id,a.tenant_id)}>${a.name}</a></td><td><${k} value=${a.status} /></td>
        <td>${a.node}</td><td>${a.tenant_id?n`<a href=${`/admin/tenants/${encodeURIComponent(a.tenant_id)}`}>${a.tenant_id}</a>`:""}</td><td>${a.cpu_cores} CPU, ${v(a.memory_mb)}, ${_(a.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&n`<p>No machine${Object.values(t).some(Boolean)?" matches":"s yet"}.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${o.length===1} onClick=${()=>i(o.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>i([...o,e.next_cursor])}>Next</button>
      <span class="muted" data-page-number>Page ${o.length}${h.key?", sorted on this page":""}</span>
    </nav>`}
  </main>`}var F=(t,s)=>s>0?`${Math.round(100*t/s)}%`:"";function et(){let[t,s]=l(0);return n`<main id="main">
    <h1>Nodes</h1>
    <${z} onDone=${()=>s(o=>o+1)} />
    <${R} key=${t} />
  </main>`}function z({onDone:t}){let[s,o]=l(null),[i,e]=l(!1),[u,r]=l(null);return n`<div>
    <button type="button" data-sync disabled=${i} onClick=${async()=>{e(!0),r(null),o(null);try{o(await $("POST","/api/virt/sync")),t()}catch(g){r(g)}finally{e(!1)}}}>${i?"Syncing…":"Sync with the hypervisor now"}</button>
    <${p} error=${u} />
    <p role="status" data-synced>${s?`Synced in ${s.duration_ms} ms: ${s.nodes} nodes; machines ${s.machines.added} added, ${s.machines.updated} updated, ${s.machines.removed} removed; backups ${s.backups?.adopted??0} adopted, ${s.backups?.removed??0} removed${s.locations_unavailable?.length?`; not answering: ${s.locations_unavailable.join(", ")}`:""}.`:""}</p>
  </div>`}function R(){let[t,s]=l(null),[o,i]=l(null);return m(()=>{$("GET","/api/virt/nodes?limit=500").then(s,i)},[]),n`<div>
    <${p} error=${o} />
    ${t&&n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>n`<tr key=${e.id}><td>${e.name}</td><td><${k} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${v(e.memory_mb)}, ${F(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${_(e.disk_gb)}, ${F(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var C=t=>t==null?"":`${Math.round(t*100)}%`;function st(){let[t,s]=l(null),[o,i]=l(null);return m(()=>{$("GET","/api/monitoring/overview").then(s,i)},[]),n`<main id="main">
    <h1>Dashboard</h1>
    <${p} error=${o} />
    ${t&&n`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?n`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${C(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${C(t.capacity.memory.ratio)}</strong> (${v(t.capacity.memory.used_mb)}/${v(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${C(t.capacity.disk.ratio)}</strong> (${_(t.capacity.disk.used_gb)}/${_(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${b} id="dash-nodes" title="Nodes"><${R} /><//>
    <${b} id="dash-graphs" title="Cluster usage"><${A} url="/api/virt/cluster/usage-graphs" /><//>
    <${L} />
    <${q} />
    <${B} />
  </main>`}function L(){let[t,s]=l(null),[o,i]=l(null),e=()=>Promise.all(["firing","acknowledged"].map(r=>$("GET",`/api/monitoring/alerts/events?status=${r}&limit=200`))).then(([r,y])=>s([...r.items,...y.items]),i);m(()=>{e()},[]);let u=r=>$("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(r.id)}`,{status:"acknowledged"}).then(e,i);return n`<${b} id="dash-alerts" title="Open alerts">
    <${p} error=${o} />
    ${t&&(t.length===0?n`<p>No open alerts.</p>`:n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(r=>n`<tr key=${r.id} data-alert=${r.id}><td><span class=${`badge sev-${r.severity}`}>${r.severity}</span></td>
        <td>${r.message} <span class="muted">${r.kind} ${r.target_type} ${r.target_id}</span></td><td>${S(r.started_at)}</td>
        <td><${k} value=${r.status} /></td>
        <td>${r.status==="firing"?n`<${P} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>u(r)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var w=(t,s)=>t.unit==="bytes"?E(s):`${s.toFixed(1)} ${t.unit}`;function q(){let[t,s]=l(null),[o,i]=l(null);return m(()=>{$("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(s,i)},[]),n`<${b} id="dash-forecast" title="Capacity forecast (90 days)">
    <${p} error=${o} />
    ${t&&n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>n`<tr key=${e.resource}><td>${e.resource}</td><td>${w(e,e.used)}</td><td>${w(e,e.capacity)}</td>
        <td>${w(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function B(){let[t,s]=l(null),[o,i]=l(null);return m(()=>{$("GET","/api/monitoring/insights/faulty-deployments").then(s,i)},[]),n`<${b} id="dash-faulty" title="Faulty deployments">
    <${p} error=${o} />
    ${t&&(t.items.length===0?n`<p>None.</p>`:n`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>n`<tr key=${e.machine_id}><td><a href=${M(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${S(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{tt as AdminMachines,st as Dashboard,et as Nodes};
