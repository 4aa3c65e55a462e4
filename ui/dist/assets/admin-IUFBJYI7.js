import{p as M}from"./chunk-OG4CQLQX.js";import{b as N}from"./chunk-NOVTYDXA.js";import{b as F,c as T}from"./chunk-DPDHYRQP.js";import"./chunk-2POUUWF6.js";import{a as x}from"./chunk-FERSF4KL.js";import{a as P}from"./chunk-HQUNSCRM.js";import{a as l,b as $,k as m,m as y,n as f,o as C,p as v,q as h,s as E,t as b}from"./chunk-GBUNNUYN.js";import{g as a}from"./chunk-XGWGEZEQ.js";var O=x(()=>import("./graphs-RZSIVX7B.js"),"Graphs"),G=(t,o)=>`/admin/machines/${encodeURIComponent(t)}${o?`?tenant=${encodeURIComponent(o)}`:""}`,L=["","provisioning","running","stopped","suspended","migrating","error"],j=[["name","Name"],["status","Status"],["node","Node"],["tenant_id","Tenant"]],z=(t,o)=>(n,r)=>o*String(n[t]??"").localeCompare(String(r[t]??""),void 0,{numeric:!0}),q=({k:t,label:o,sort:n,setSort:r})=>{let e=n.key===t;return a`<th scope="col" aria-sort=${e?n.dir>0?"ascending":"descending":void 0}>
    <button type="button" class="sort" data-sort=${t} onClick=${()=>r({key:t,dir:e?-n.dir:1})}>${o}${e?n.dir>0?" ▲":" ▼":""}</button></th>`};function at(){let[t,o]=l({name:"",status:"",node:"",tenant_id:""}),[n,r]=l([""]),[e,u]=l(null),[i,_]=l(null),k=n[n.length-1],[p,A]=l({key:"",dir:1}),D=e&&(p.key?[...e.items].sort(z(p.key,p.dir)):e.items),{names:I}=F();return $(()=>{let s=new URLSearchParams({limit:"50"});for(let[d,c]of Object.entries(t))c&&s.set(d,c);k&&s.set("cursor",k),_(null),m("GET",`/api/resources/machines?${s}`).then(u,_)},[t,k]),$(()=>N((s,d)=>{s==="machine.updated"&&u(c=>c&&{...c,items:c.items.map(g=>g.id===d.id?{...g,...d}:g)}),s==="machine.deleted"&&u(c=>c&&{...c,items:c.items.filter(g=>g.id!==d.id)})}),[]),a`<main id="main">
    <h1>All machines</h1>
    <${M} admin onCreated=${s=>u(d=>d&&{...d,items:[s.machine,...d.items.filter(c=>c.id!==s.machine.id)]})} />
    <form class="filters" onSubmit=${s=>{s.preventDefault();let d=new FormData(s.target);o(Object.fromEntries(Object.keys(t).map(c=>[c,(d.get(c)||"").trim()]))),r([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${L.map(s=>a`<option value=${s}>${s||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${h} error=${i} />
    ${e&&a`<div class="table-wrap" tabindex="0"><table data-machines>
      <caption class="sr-only">Machines${p.key?", this page sorted":""}</caption>
      <thead><tr>${j.map(([s,d])=>a`<${q} k=${s} label=${d} sort=${p} setSort=${A} />`)}<th scope="col">Location</th><th scope="col">Size</th></tr></thead>
      <tbody>${D.map(s=>a`<tr key=${s.id}><td><a href=${G(s.id,s.tenant_id)}>${s.name}</a></td><td><${v} value=${s.status} /></td>
        <td>${s.node}</td><td>${s.tenant_id?a`<a href=${`/admin/tenants/${encodeURIComponent(s.tenant_id)}`}>${s.tenant_id}</a>`:""}</td>
        <td data-location>${T(I,s.location_id)}</td><td>${s.cpu_cores} CPU, ${y(s.memory_mb)}, ${f(s.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&a`<p>No machine${Object.values(t).some(Boolean)?" matches":"s yet"}.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${n.length===1} onClick=${()=>r(n.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>r([...n,e.next_cursor])}>Next</button>
      <span class="muted" data-page-number>Page ${n.length}${p.key?", sorted on this page":""}</span>
    </nav>`}
  </main>`}var U=(t,o)=>o>0?`${Math.round(100*t/o)}%`:"";function ot(){return a`<main id="main">
    <h1>Nodes</h1>
    <${R} />
  </main>`}function R(){let[t,o]=l(null),[n,r]=l(null);return $(()=>{m("GET","/api/virt/nodes?limit=500").then(o,r)},[]),a`<div>
    <${h} error=${n} />
    ${t&&a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>a`<tr key=${e.id}><td>${e.name}</td><td><${v} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${y(e.memory_mb)}, ${U(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${f(e.disk_gb)}, ${U(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var S=t=>t==null?"":`${Math.round(t*100)}%`;function nt(){let[t,o]=l(null),[n,r]=l(null);return $(()=>{m("GET","/api/monitoring/overview").then(o,r)},[]),a`<main id="main">
    <h1>Dashboard</h1>
    <${h} error=${n} />
    ${t&&a`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?a`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${S(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${S(t.capacity.memory.ratio)}</strong> (${y(t.capacity.memory.used_mb)}/${y(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${S(t.capacity.disk.ratio)}</strong> (${f(t.capacity.disk.used_gb)}/${f(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${b} id="dash-nodes" title="Nodes"><${R} /><//>
    <${b} id="dash-graphs" title="Cluster usage"><${O} url="/api/virt/cluster/usage-graphs" /><//>
    <${H} />
    <${K} />
    <${V} />
  </main>`}function H(){let[t,o]=l(null),[n,r]=l(null),e=()=>Promise.all(["firing","acknowledged"].map(i=>m("GET",`/api/monitoring/alerts/events?status=${i}&limit=200`))).then(([i,_])=>o([...i.items,..._.items]),r);$(()=>{e()},[]);let u=i=>m("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(i.id)}`,{status:"acknowledged"}).then(e,r);return a`<${b} id="dash-alerts" title="Open alerts">
    <${h} error=${n} />
    ${t&&(t.length===0?a`<p>No open alerts.</p>`:a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(i=>a`<tr key=${i.id} data-alert=${i.id}><td><span class=${`badge sev-${i.severity}`}>${i.severity}</span></td>
        <td>${i.message} <span class="muted">${i.kind} ${i.target_type} ${i.target_id}</span></td><td>${C(i.started_at)}</td>
        <td><${v} value=${i.status} /></td>
        <td>${i.status==="firing"?a`<${P} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>u(i)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var w=(t,o)=>t.unit==="bytes"?E(o):`${o.toFixed(1)} ${t.unit}`;function K(){let[t,o]=l(null),[n,r]=l(null);return $(()=>{m("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(o,r)},[]),a`<${b} id="dash-forecast" title="Capacity forecast (90 days)">
    <${h} error=${n} />
    ${t&&a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>a`<tr key=${e.resource}><td>${e.resource}</td><td>${w(e,e.used)}</td><td>${w(e,e.capacity)}</td>
        <td>${w(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function V(){let[t,o]=l(null),[n,r]=l(null);return $(()=>{m("GET","/api/monitoring/insights/faulty-deployments").then(o,r)},[]),a`<${b} id="dash-faulty" title="Faulty deployments">
    <${h} error=${n} />
    ${t&&(t.items.length===0?a`<p>None.</p>`:a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>a`<tr key=${e.machine_id}><td><a href=${G(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${C(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{at as AdminMachines,nt as Dashboard,ot as Nodes};
