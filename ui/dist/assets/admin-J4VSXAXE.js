import{p as F}from"./chunk-C7Q2AHMN.js";import{b as N}from"./chunk-MIMHD4HQ.js";import"./chunk-ZZQYSPDV.js";import"./chunk-TBCE6UEU.js";import{a as x}from"./chunk-AX76OU66.js";import"./chunk-JV7NVBOQ.js";import{a as P}from"./chunk-HOYY2OMK.js";import{a as l,b as $,l as u,n as y,o as f,p as C,q as v,r as h,t as E,u as b}from"./chunk-E4PU34WH.js";import{g as a}from"./chunk-XGWGEZEQ.js";var A=x(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),M=(t,n)=>`/admin/machines/${encodeURIComponent(t)}${n?`?tenant=${encodeURIComponent(n)}`:""}`,D=["","provisioning","running","stopped","suspended","migrating","error"],I=[["name","Name"],["status","Status"],["node","Node"],["tenant_id","Tenant"]],O=(t,n)=>(o,i)=>n*String(o[t]??"").localeCompare(String(i[t]??""),void 0,{numeric:!0}),j=({k:t,label:n,sort:o,setSort:i})=>{let e=o.key===t;return a`<th scope="col" aria-sort=${e?o.dir>0?"ascending":"descending":void 0}>
    <button type="button" class="sort" data-sort=${t} onClick=${()=>i({key:t,dir:e?-o.dir:1})}>${n}${e?o.dir>0?" ▲":" ▼":""}</button></th>`};function Z(){let[t,n]=l({name:"",status:"",node:"",tenant_id:""}),[o,i]=l([""]),[e,m]=l(null),[r,_]=l(null),k=o[o.length-1],[p,G]=l({key:"",dir:1}),R=e&&(p.key?[...e.items].sort(O(p.key,p.dir)):e.items);return $(()=>{let s=new URLSearchParams({limit:"50"});for(let[c,d]of Object.entries(t))d&&s.set(c,d);k&&s.set("cursor",k),_(null),u("GET",`/api/resources/machines?${s}`).then(m,_)},[t,k]),$(()=>N((s,c)=>{s==="machine.updated"&&m(d=>d&&{...d,items:d.items.map(g=>g.id===c.id?{...g,...c}:g)}),s==="machine.deleted"&&m(d=>d&&{...d,items:d.items.filter(g=>g.id!==c.id)})}),[]),a`<main id="main">
    <h1>All machines</h1>
    <${F} admin onCreated=${s=>m(c=>c&&{...c,items:[s.machine,...c.items.filter(d=>d.id!==s.machine.id)]})} />
    <form class="filters" onSubmit=${s=>{s.preventDefault();let c=new FormData(s.target);n(Object.fromEntries(Object.keys(t).map(d=>[d,(c.get(d)||"").trim()]))),i([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${t.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${t.status}>
        ${D.map(s=>a`<option value=${s}>${s||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${t.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${t.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${h} error=${r} />
    ${e&&a`<div class="table-wrap" tabindex="0"><table data-machines>
      <caption class="sr-only">Machines${p.key?", this page sorted":""}</caption>
      <thead><tr>${I.map(([s,c])=>a`<${j} k=${s} label=${c} sort=${p} setSort=${G} />`)}<th scope="col">Size</th></tr></thead>
      <tbody>${R.map(s=>a`<tr key=${s.id}><td><a href=${M(s.id,s.tenant_id)}>${s.name}</a></td><td><${v} value=${s.status} /></td>
        <td>${s.node}</td><td>${s.tenant_id?a`<a href=${`/admin/tenants/${encodeURIComponent(s.tenant_id)}`}>${s.tenant_id}</a>`:""}</td><td>${s.cpu_cores} CPU, ${y(s.memory_mb)}, ${f(s.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&a`<p>No machine${Object.values(t).some(Boolean)?" matches":"s yet"}.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${o.length===1} onClick=${()=>i(o.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>i([...o,e.next_cursor])}>Next</button>
      <span class="muted" data-page-number>Page ${o.length}${p.key?", sorted on this page":""}</span>
    </nav>`}
  </main>`}var T=(t,n)=>n>0?`${Math.round(100*t/n)}%`:"";function tt(){return a`<main id="main">
    <h1>Nodes</h1>
    <${U} />
  </main>`}function U(){let[t,n]=l(null),[o,i]=l(null);return $(()=>{u("GET","/api/virt/nodes?limit=500").then(n,i)},[]),a`<div>
    <${h} error=${o} />
    ${t&&a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${t.items.map(e=>a`<tr key=${e.id}><td>${e.name}</td><td><${v} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${y(e.memory_mb)}, ${T(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${f(e.disk_gb)}, ${T(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </div>`}var S=t=>t==null?"":`${Math.round(t*100)}%`;function et(){let[t,n]=l(null),[o,i]=l(null);return $(()=>{u("GET","/api/monitoring/overview").then(n,i)},[]),a`<main id="main">
    <h1>Dashboard</h1>
    <${h} error=${o} />
    ${t&&a`<ul class="stats" aria-label="Cluster">
      <li><strong>${t.nodes.online}/${t.nodes.total}</strong> nodes online</li>
      <li><strong>${t.machines.running}/${t.machines.total}</strong> machines running${t.machines.error?a`, <span class="s-error">${t.machines.error} in error</span>`:""}</li>
      <li><strong>${t.alerts.firing}</strong> alerts firing (${t.alerts.critical} critical)</li>
      <li><strong>${t.health_checks.failing}</strong> health checks failing</li>
      <li>CPU <strong>${S(t.capacity.cpu.ratio)}</strong> (${t.capacity.cpu.used_cores}/${t.capacity.cpu.total_cores} cores)</li>
      <li>Memory <strong>${S(t.capacity.memory.ratio)}</strong> (${y(t.capacity.memory.used_mb)}/${y(t.capacity.memory.total_mb)})</li>
      <li>Disk <strong>${S(t.capacity.disk.ratio)}</strong> (${f(t.capacity.disk.used_gb)}/${f(t.capacity.disk.total_gb)})</li>
    </ul>`}
    <${b} id="dash-nodes" title="Nodes"><${U} /><//>
    <${b} id="dash-graphs" title="Cluster usage"><${A} url="/api/virt/cluster/usage-graphs" /><//>
    <${z} />
    <${L} />
    <${q} />
  </main>`}function z(){let[t,n]=l(null),[o,i]=l(null),e=()=>Promise.all(["firing","acknowledged"].map(r=>u("GET",`/api/monitoring/alerts/events?status=${r}&limit=200`))).then(([r,_])=>n([...r.items,..._.items]),i);$(()=>{e()},[]);let m=r=>u("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(r.id)}`,{status:"acknowledged"}).then(e,i);return a`<${b} id="dash-alerts" title="Open alerts">
    <${h} error=${o} />
    ${t&&(t.length===0?a`<p>No open alerts.</p>`:a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(r=>a`<tr key=${r.id} data-alert=${r.id}><td><span class=${`badge sev-${r.severity}`}>${r.severity}</span></td>
        <td>${r.message} <span class="muted">${r.kind} ${r.target_type} ${r.target_id}</span></td><td>${C(r.started_at)}</td>
        <td><${v} value=${r.status} /></td>
        <td>${r.status==="firing"?a`<${P} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>m(r)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}var w=(t,n)=>t.unit==="bytes"?E(n):`${n.toFixed(1)} ${t.unit}`;function L(){let[t,n]=l(null),[o,i]=l(null);return $(()=>{u("GET","/api/monitoring/insights/cluster-forecast?horizon_days=90").then(n,i)},[]),a`<${b} id="dash-forecast" title="Capacity forecast (90 days)">
    <${h} error=${o} />
    ${t&&a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Capacity</th><th scope="col">Trend a day</th><th scope="col">Runs out</th></tr></thead>
      <tbody>${t.resources.map(e=>a`<tr key=${e.resource}><td>${e.resource}</td><td>${w(e,e.used)}</td><td>${w(e,e.capacity)}</td>
        <td>${w(e,e.trend_per_day)}</td><td>${e.exhausted_at||"not within the horizon"}</td></tr>`)}</tbody>
    </table></div>`}
  <//>`}function q(){let[t,n]=l(null),[o,i]=l(null);return $(()=>{u("GET","/api/monitoring/insights/faulty-deployments").then(n,i)},[]),a`<${b} id="dash-faulty" title="Faulty deployments">
    <${h} error=${o} />
    ${t&&(t.items.length===0?a`<p>None.</p>`:a`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Reason</th><th scope="col">Failed tasks</th><th scope="col">Last error</th><th scope="col">Since</th></tr></thead>
      <tbody>${t.items.map(e=>a`<tr key=${e.machine_id}><td><a href=${M(e.machine_id,e.tenant_id)}>${e.name}</a></td>
        <td>${e.reason}</td><td>${e.failed_tasks}</td><td>${e.last_error||""}</td><td>${C(e.since)}</td></tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{Z as AdminMachines,et as Dashboard,tt as Nodes};
