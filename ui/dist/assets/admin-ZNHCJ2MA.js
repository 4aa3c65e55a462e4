import{b as S}from"./chunk-J6DCW2GQ.js";import{a as x}from"./chunk-3UYUDP3L.js";import{a as N}from"./chunk-GA4CKMMI.js";import{a as i,b as d,j as h,l as g,m as y,n as k,o as _,p as u,r as E,s as $}from"./chunk-VVJEA7B6.js";import{g as s}from"./chunk-XGWGEZEQ.js";var G=x(()=>import("./graphs-VNOUYULS.js"),"Graphs"),P=(t,o)=>`/admin/machines/${encodeURIComponent(t)}${o?`?tenant=${encodeURIComponent(o)}`:""}`,U=["","provisioning","running","stopped","suspended","migrating","error"];function Y(){let[t,o]=i({name:"",status:"",node:"",tenant_id:""}),[r,l]=i([""]),[e,m]=i(null),[n,f]=i(null),v=r[r.length-1];return d(()=>{let a=new URLSearchParams({limit:"50"});for(let[p,c]of Object.entries(t))c&&a.set(p,c);v&&a.set("cursor",v),f(null),h("GET",`/api/resources/machines?${a}`).then(m,f)},[t,v]),d(()=>S((a,p)=>{a==="machine.updated"&&m(c=>c&&{...c,items:c.items.map(b=>b.id===p.id?{...b,...p}:b)}),a==="machine.deleted"&&m(c=>c&&{...c,items:c.items.filter(b=>b.id!==p.id)})}),[]),s`<main id="main">
    <h1>All machines</h1>
    <form class="filters" onSubmit=${a=>{a.preventDefault();let p=new FormData(a.target);o(Object.fromEntries(Object.keys(t).map(c=>[c,(p.get(c)||"").trim()]))),l([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${U.map(a=>s`<option value=${a}>${a||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${u} error=${n} />
    ${e&&s`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Node</th><th scope="col">Tenant</th><th scope="col">Size</th></tr></thead>
      <tbody>${e.items.map(a=>s`<tr key=${a.id}><td><a href=${P(a.id,a.tenant_id)}>${a.name}</a></td><td><${_} value=${a.status} /></td>
        <td>${a.node}</td><td>${a.tenant_id||""}</td><td>${a.cpu_cores} CPU, ${g(a.memory_mb)}, ${y(a.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>l(r.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>l([...r,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}var F=(t,o)=>o>0?`${Math.round(100*t/o)}%`:"";function H(){return s`<main id="main">
    <h1>Nodes</h1>
    <${T} />
  </main>`}function T(){let[t,o]=i(null),[r,l]=i(null);return d(()=>{h("GET","/api/virt/nodes?limit=500").then(o,l)},[]),s`<div>
    <${u} error=${r} />
    ${t&&s`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>s`<tr key=${e.id}><td>${e.name}</td><td><${_} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${g(e.memory_mb)}, ${F(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${y(e.disk_gb)}, ${F(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var C=t=>t==null?"":`${Math.round(t*100)}%`;function W(){let[t,o]=i(null),[r,l]=i(null);return d(()=>{h("GET","/api/monitoring/overview").then(o,l)},[]),s`<main id="main">
    <h1>Dashboard</h1>
    <${u} error=${r} />
    ${t&&s`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?s`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${C(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${C(t.capacity.memory.ratio)}</strong> (${g(t.capacity.memory.used_mb)}/${g(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${C(t.capacity.disk.ratio)}</strong> (${y(t.capacity.disk.used_gb)}/${y(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${$} id="dash-nodes" title="Nodes"><${T} /><//>
    <${$} id="dash-graphs" title="Cluster usage"><${G} url="/api/virt/cluster/usage-graphs" /><//>
    <${A} />
    <${M} />
    <${R} />
  </main>`}function A(){let[t,o]=i(null),[r,l]=i(null),e=()=>Promise.all(["firing","acknowledged"].map(n=>h("GET",`/api/monitoring/alerts/events?status=${n}&limit=200`))).then(([n,f])=>o([...n.items,...f.items]),l);d(()=>{e()},[]);let m=n=>h("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(n.id)}`,{status:"acknowledged"}).then(e,l);return s`<${$} id="dash-alerts" title="Open alerts">
    <${u} error=${r} />
    ${t&&(t.length===0?s`<p>No open alerts.</p>`:s`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(n=>s`<tr key=${n.id} data-alert=${n.id}><td><span class=${`badge sev-${n.severity}`}>${n.severity}</span></td>
        <td>${n.message} <span class="muted">${n.kind} ${n.target_type} ${n.target_id}</span></td><td>${k(n.started_at)}</td>
        <td><${_} value=${n.status} /></td>
        <td>${n.status==="firing"?s`<${N} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>m(n)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var w=(t,o)=>t.unit==="bytes"?E(o):`${o.toFixed(1)} ${t.unit}`;function M(){let[t,o]=i(null),[r,l]=i(null);return d(()=>{h("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(o,l)},[]),s`<${$} id="dash-forecast" title="Capacity forecast (90 days)">
    <${u} error=${r} />
    ${t&&s`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>s`<tr key=${e.resource}><td>${e.resource}</td><td>${w(e,e.used)}</td><td>${w(e,e.capacity)}</td>
        <td>${w(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function R(){let[t,o]=i(null),[r,l]=i(null);return d(()=>{h("GET","/api/monitoring/insights/faulty-deployments").then(o,l)},[]),s`<${$} id="dash-faulty" title="Faulty deployments">
    <${u} error=${r} />
    ${t&&(t.items.length===0?s`<p>None.</p>`:s`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>s`<tr key=${e.machine_id}><td><a href=${P(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${k(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{Y as AdminMachines,W as Dashboard,H as Nodes};
