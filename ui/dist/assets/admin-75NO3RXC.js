import{n as F}from"./chunk-C6SGQ7UJ.js";import{b as S}from"./chunk-YQDC66KP.js";import"./chunk-GJDTPUNE.js";import{a as x}from"./chunk-D7552HJV.js";import{a as N}from"./chunk-4N27BIS6.js";import{a as l,b as h,k as $,m as g,n as y,o as k,p as _,q as p,s as E,t as m}from"./chunk-GR3JKDU4.js";import{g as a}from"./chunk-XGWGEZEQ.js";var G=x(()=>import("./graphs-5QITJ5QG.js"),"Graphs"),T=(t,o)=>`/admin/machines/${encodeURIComponent(t)}${o?`?tenant=${encodeURIComponent(o)}`:""}`,M=["","provisioning","running","stopped","suspended","migrating","error"];function W(){let[t,o]=l({name:"",status:"",node:"",tenant_id:""}),[i,c]=l([""]),[e,u]=l(null),[n,f]=l(null),v=i[i.length-1];return h(()=>{let s=new URLSearchParams({limit:"50"});for(let[d,r]of Object.entries(t))r&&s.set(d,r);v&&s.set("cursor",v),f(null),$("GET",`/api/resources/machines?${s}`).then(u,f)},[t,v]),h(()=>S((s,d)=>{s==="machine.updated"&&u(r=>r&&{...r,items:r.items.map(b=>b.id===d.id?{...b,...d}:b)}),s==="machine.deleted"&&u(r=>r&&{...r,items:r.items.filter(b=>b.id!==d.id)})}),[]),a`<main id="main">
    <h1>All machines</h1>
    <${F} admin onCreated=${s=>u(d=>d&&{...d,items:[s.machine,...d.items.filter(r=>r.id!==s.machine.id)]})} />
    <form class="filters" onSubmit=${s=>{s.preventDefault();let d=new FormData(s.target);o(Object.fromEntries(Object.keys(t).map(r=>[r,(d.get(r)||"").trim()]))),c([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${M.map(s=>a`<option value=${s}>${s||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${p} error=${n} />
    ${e&&a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Node</th><th scope="col">Tenant</th><th scope="col">Size</th></tr></thead>
      <tbody>${e.items.map(s=>a`<tr key=${s.id}><td><a href=${T(s.id,s.tenant_id)}>${s.name}</a></td><td><${_} value=${s.status} /></td>
        <td>${s.node}</td><td>${s.tenant_id?a`<a href=${`/admin/tenants/${encodeURIComponent(s.tenant_id)}`}>${s.tenant_id}</a>`:""}</td><td>${s.cpu_cores} CPU, ${g(s.memory_mb)}, ${y(s.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>c(i.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>c([...i,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}var P=(t,o)=>o>0?`${Math.round(100*t/o)}%`:"";function B(){return a`<main id="main">
    <h1>Nodes</h1>
    <${U} />
  </main>`}function U(){let[t,o]=l(null),[i,c]=l(null);return h(()=>{$("GET","/api/virt/nodes?limit=500").then(o,c)},[]),a`<div>
    <${p} error=${i} />
    ${t&&a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>a`<tr key=${e.id}><td>${e.name}</td><td><${_} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${g(e.memory_mb)}, ${P(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${y(e.disk_gb)}, ${P(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var C=t=>t==null?"":`${Math.round(t*100)}%`;function J(){let[t,o]=l(null),[i,c]=l(null);return h(()=>{$("GET","/api/monitoring/overview").then(o,c)},[]),a`<main id="main">
    <h1>Dashboard</h1>
    <${p} error=${i} />
    ${t&&a`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?a`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${C(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${C(t.capacity.memory.ratio)}</strong> (${g(t.capacity.memory.used_mb)}/${g(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${C(t.capacity.disk.ratio)}</strong> (${y(t.capacity.disk.used_gb)}/${y(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${m} id="dash-nodes" title="Nodes"><${U} /><//>
    <${m} id="dash-graphs" title="Cluster usage"><${G} url="/api/virt/cluster/usage-graphs" /><//>
    <${R} />
    <${A} />
    <${D} />
  </main>`}function R(){let[t,o]=l(null),[i,c]=l(null),e=()=>Promise.all(["firing","acknowledged"].map(n=>$("GET",`/api/monitoring/alerts/events?status=${n}&limit=200`))).then(([n,f])=>o([...n.items,...f.items]),c);h(()=>{e()},[]);let u=n=>$("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(n.id)}`,{status:"acknowledged"}).then(e,c);return a`<${m} id="dash-alerts" title="Open alerts">
    <${p} error=${i} />
    ${t&&(t.length===0?a`<p>No open alerts.</p>`:a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(n=>a`<tr key=${n.id} data-alert=${n.id}><td><span class=${`badge sev-${n.severity}`}>${n.severity}</span></td>
        <td>${n.message} <span class="muted">${n.kind} ${n.target_type} ${n.target_id}</span></td><td>${k(n.started_at)}</td>
        <td><${_} value=${n.status} /></td>
        <td>${n.status==="firing"?a`<${N} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>u(n)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var w=(t,o)=>t.unit==="bytes"?E(o):`${o.toFixed(1)} ${t.unit}`;function A(){let[t,o]=l(null),[i,c]=l(null);return h(()=>{$("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(o,c)},[]),a`<${m} id="dash-forecast" title="Capacity forecast (90 days)">
    <${p} error=${i} />
    ${t&&a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>a`<tr key=${e.resource}><td>${e.resource}</td><td>${w(e,e.used)}</td><td>${w(e,e.capacity)}</td>
        <td>${w(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function D(){let[t,o]=l(null),[i,c]=l(null);return h(()=>{$("GET","/api/monitoring/insights/faulty-deployments").then(o,c)},[]),a`<${m} id="dash-faulty" title="Faulty deployments">
    <${p} error=${i} />
    ${t&&(t.items.length===0?a`<p>None.</p>`:a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>a`<tr key=${e.machine_id}><td><a href=${T(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${k(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{W as AdminMachines,J as Dashboard,B as Nodes};
