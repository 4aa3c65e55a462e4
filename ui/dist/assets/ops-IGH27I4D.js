import{a as x,b as q,c as w,d as U}from"./chunk-MTL65ZAK.js";import{b as A}from"./chunk-MIMHD4HQ.js";import{a as E,b as F}from"./chunk-YQSPOLJD.js";import{a as P}from"./chunk-HOYY2OMK.js";import{a as _,b as T,l as k,p as v,q as C,r as f,s as o,u as D}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var I=r=>r?new Date(r).toISOString():"",L=[["actor","Actor (user or key id)"],["action","Action (POST /api/...)"],["target","Target (id or kind/id)"]];function Z(){let[r,d]=_({limit:"50"}),m=new URLSearchParams(Object.entries(r).filter(([,e])=>e)),{page:i,error:l,pager:p}=x(`/api/audit?${m}`);return n`<main id="main">
    <h1>Audit log</h1>
    <form class="filters" onSubmit=${e=>{e.preventDefault();let s=new FormData(e.target),c={limit:String(s.get("limit"))};for(let[u]of L)c[u]=String(s.get(u)).trim();c.since=I(s.get("since")),c.until=I(s.get("until")),d(c)}} role="search" aria-label="Filter the audit log">
      ${L.map(([e,s])=>n`<${o} name=${e} label=${s} error=${l} />`)}
      <${o} name="since" label="Since" error=${l} type="datetime-local" />
      <${o} name="until" label="Until" error=${l} type="datetime-local" />
      <label class="field"><span>A page</span><select name="limit">${["20","50","200"].map(e=>n`<option value=${e} selected=${e===r.limit}>${e}</option>`)}</select></label>
      <button type="submit">Filter</button>
    </form>
    <${f} error=${l} />
    ${i&&n`<div class="table-wrap" tabindex="0"><table data-audit>
      <caption class="sr-only">Audit log, newest first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Tenant</th><th scope="col">Result</th><th scope="col">Client</th></tr></thead>
      <tbody>${i.items.map(e=>n`<tr key=${e.id} data-entry=${e.id}><td>${v(e.time)}</td>
        <td>${e.actor||"unknown"}${e.actor_kind==="api_key"?" (API key)":""}</td><td data-action>${e.action}</td>
        <td>${e.target_kind?`${e.target_kind}/`:""}${e.target_id||""}</td><td>${e.tenant_id||""}</td>
        <td>${e.result}${e.reason?n`<span class="muted">: ${e.reason}</span>`:""}</td><td>${e.client||""}</td></tr>`)}</tbody>
    </table></div>
    ${i.items.length===0&&n`<p>No entries.</p>`}
    ${p}`}
  </main>`}var N={checks:"/api/monitoring/health-checks",alerts:"/api/monitoring/alerts/events",page:"/admin/health"},O={checks:"/api/resources/health-checks",alerts:"/api/resources/alert-events",page:"/health"},H=r=>r.enabled?r.last?.status||"unknown":"disabled";function ee({tenant:r}){let d=r?O:N,m=d.checks,{page:i,error:l,reload:p,pager:$}=x(`${m}?limit=50`),[e,s]=w(),[c,u]=_(!1);T(()=>A(a=>{a==="alert.updated"&&p()}),[p]);let h=async a=>{a.preventDefault();let b=new FormData(a.target),R={name:b.get("name"),type:b.get("type"),target:b.get("target"),...q(b,["interval_s","timeout_ms","expected_status","failure_threshold"])};for(let S of["tenant_id","machine_id"])b.get(S)&&(R[S]=b.get(S));await s(()=>k("POST",m,R))&&(u(!1),p())},g=a=>s(()=>k("DELETE",`${m}/${encodeURIComponent(a.id)}`)).then(p),[t,y]=_(null);return n`<main id="main">
    <h1>Health checks</h1>
    ${r&&n`<p class="muted">A check probes one of your machines' addresses (an IP address, never a name: <code>192.0.2.10:22</code> for tcp, <code>http://192.0.2.10/health</code> for http) and raises an alert when it fails.</p>`}
    ${c?n`<form class="card" onSubmit=${h} aria-label="New health check">
        <${f} error=${e} />
        <div class="grid">
          <${o} name="name" label="Name" error=${e} required maxlength="100" />
          <label class="field"><span>Type</span><select name="type"><option value="http">http (a URL)</option><option value="tcp">tcp (host:port)</option></select></label>
          <${o} name="target" label="Target" error=${e} required />
          <${o} name="interval_s" label="Every (seconds)" error=${e} type="number" min="1" max="86400" placeholder="60" />
          <${o} name="timeout_ms" label="Timeout (ms)" error=${e} type="number" min="100" max="60000" placeholder="5000" />
          <${o} name="failure_threshold" label="Failures before it fails" error=${e} type="number" min="0" max="100" placeholder="3" />
          <${o} name="expected_status" label="HTTP status expected (blank: 2xx or 3xx)" error=${e} type="number" min="0" max="599" />
          ${!r&&n`<${o} name="tenant_id" label="Tenant (optional)" error=${e} />`}
          <${o} name="machine_id" label="Machine (optional)" error=${e} />
        </div>
        <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>u(!1)}>Cancel</button>
      </form>`:n`<button class="primary" onClick=${()=>u(!0)}>New health check</button>`}
    <${f} error=${l||!c&&e} />
    ${i&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Health checks</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Probe</th><th scope="col">State</th><th scope="col">Last probe</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(a=>n`<tr key=${a.id} data-check=${a.name}><td>${a.name}</td>
        <td>${a.type} ${a.target}, every ${a.interval_s} s</td>
        <td><${C} value=${H(a)} />${a.last?.consecutive_failures?` ${a.last.consecutive_failures} failed in a row`:""}</td>
        <td>${a.last?.checked_at?`${v(a.last.checked_at)}, ${Math.round(a.last.latency_ms)} ms`:"not yet"}${a.last?.error?n`<span class="muted">: ${a.last.error}</span>`:""}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${t===a.id?"true":"false"} onClick=${()=>y(t===a.id?null:a.id)}>Edit</button>
          <${P} name="delete-check" label="Delete" yes="Yes, delete" question=${`Delete the check ${a.name}? Its alert resolves.`} onYes=${()=>g(a)} /></td></tr>
        ${t===a.id&&n`<tr key=${`${a.id}-edit`} class="edit-row"><td colspan="5">
          <${V} c=${a} checksPath=${m} onCancel=${()=>y(null)} onSaved=${()=>{y(null),p()}} />
        </td></tr>`}`)}</tbody>
    </table></div>
    ${i.items.length===0&&n`<p>No health checks yet.</p>`}
    ${$}`}
    <${K} routes=${d} />
  </main>`}function V({c:r,checksPath:d,onSaved:m,onCancel:i}){let[l,p]=w(),$=U();return n`<form onSubmit=${async s=>{s.preventDefault();let c=new FormData(s.target),u={name:String(c.get("name")).trim(),target:String(c.get("target")).trim(),enabled:c.get("enabled")==="on",...q(c,["interval_s","timeout_ms","expected_status","failure_threshold"])},h=Object.fromEntries(Object.entries(u).filter(([g,t])=>t!==r[g]));if(Object.keys(h).length===0){i();return}await p(()=>k("PATCH",`${d}/${encodeURIComponent(r.id)}`,h))&&m()}} aria-label=${`Edit ${r.name}`} onKeyDown=${s=>s.key==="Escape"&&i()}>
    <${f} error=${l} />
    <div class="grid">
      <${o} name="name" label="Name" error=${l} defaultValue=${r.name} inputRef=${$} required maxlength="100" />
      <${o} name="target" label=${r.type==="tcp"?"Target (host:port)":"Target (a URL)"} error=${l} defaultValue=${r.target} required />
      <${o} name="interval_s" label="Every (seconds)" error=${l} type="number" min="1" max="86400" defaultValue=${r.interval_s} required />
      <${o} name="timeout_ms" label="Timeout (ms)" error=${l} type="number" min="100" max="60000" defaultValue=${r.timeout_ms} required />
      <${o} name="failure_threshold" label="Failures before it fails" error=${l} type="number" min="1" max="100" defaultValue=${r.failure_threshold} required />
      <${o} name="expected_status" label="HTTP status expected (0: 2xx or 3xx)" error=${l} type="number" min="0" max="599" defaultValue=${r.expected_status} required />
    </div>
    <label class="check"><input type="checkbox" name="enabled" defaultChecked=${r.enabled} /> Enabled</label>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${i}>Cancel</button>
  </form>`}var j=["health_check","node_offline","task_failed","node_usage_high","firewall_failed","hypervisor_unavailable","webhook_disabled","traffic_exceeded"];function Y(r){let d=new URLSearchParams(r.split("?")[1]||"");return{status:d.get("status")||"firing",severity:d.get("severity")||"",kind:d.get("kind")||"health_check"}}function K({routes:r}){let{status:d,severity:m,kind:i}=Y(E.value),l=(t,y)=>{let a=new URLSearchParams({status:d,severity:m,kind:i,[t]:y});a.get("severity")||a.delete("severity"),F(`${r.page}?${a}`,!0,!0)},p=new URLSearchParams({limit:"50",status:d});m&&p.set("severity",m),i!=="all"&&p.set("kind",i);let{page:$,error:e,reload:s,pager:c}=x(`${r.alerts}?${p}`),[u,h]=w();T(()=>A(t=>{t==="alert.updated"&&s()}),[s]);let g=t=>h(()=>k("PATCH",`${r.alerts}/${encodeURIComponent(t.id)}`,{status:"acknowledged"})).then(s);return n`<${D} id="check-alerts" title="Alert events">
    <div class="inline-form" role="group" aria-label="Status">
      ${["firing","acknowledged","resolved"].map(t=>n`<button type="button" aria-pressed=${t===d?"true":"false"} onClick=${()=>l("status",t)}>${t}</button>`)}
    </div>
    <div class="filters">
      <label class="field"><span>Severity</span><select name="severity" value=${m} onChange=${t=>l("severity",t.target.value)}>
        ${["","info","warning","critical"].map(t=>n`<option value=${t}>${t||"any"}</option>`)}</select></label>
      <label class="field"><span>Kind</span><select name="kind" value=${i} onChange=${t=>l("kind",t.target.value)}>
        ${[...j,"all"].map(t=>n`<option value=${t}>${t==="all"?"any":t.replace(/_/g," ")}</option>`)}</select></label>
    </div>
    <${f} error=${e||u} />
    ${$&&($.items.length===0?n`<p>No ${d} alert events.</p>`:n`<div class="table-wrap" tabindex="0"><table data-alerts>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${$.items.map(t=>n`<tr key=${t.id} data-alert=${t.target_id}><td><span class=${`badge sev-${t.severity}`}>${t.severity}</span></td>
        <td>${t.message}${i==="all"?n` <span class="muted">${t.kind.replace(/_/g," ")}</span>`:""}</td><td>${v(t.started_at)}</td>
        <td><${C} value=${t.status} />${t.resolved_at?` ${v(t.resolved_at)}`:""}</td>
        <td>${t.status==="firing"?n`<${P} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>g(t)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
    ${c}
  <//>`}export{Z as Audit,ee as Health};
