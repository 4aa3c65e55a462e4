import{a as f,b as C,c as S}from"./chunk-HVWV2QGX.js";import{b as _}from"./chunk-YQDC66KP.js";import{a as w}from"./chunk-4N27BIS6.js";import{a as b,b as k,k as g,o as h,p as v,q as u,r as l,t as T}from"./chunk-GR3JKDU4.js";import{g as r}from"./chunk-XGWGEZEQ.js";var P=n=>n?new Date(n).toISOString():"",D=[["actor","Actor (user or key id)"],["action","Action (POST /api/...)"],["target","Target (id or kind/id)"]];function L(){let[n,m]=b({limit:"50"}),s=new URLSearchParams(Object.entries(n).filter(([,t])=>t)),{page:c,error:o,pager:d}=f(`/api/audit?${s}`);return r`<main id="main">
    <h1>Audit log</h1>
    <form class="filters" onSubmit=${t=>{t.preventDefault();let i=new FormData(t.target),e={limit:String(i.get("limit"))};for(let[a]of D)e[a]=String(i.get(a)).trim();e.since=P(i.get("since")),e.until=P(i.get("until")),m(e)}} role="search" aria-label="Filter the audit log">
      ${D.map(([t,i])=>r`<${l} name=${t} label=${i} error=${o} />`)}
      <${l} name="since" label="Since" error=${o} type="datetime-local" />
      <${l} name="until" label="Until" error=${o} type="datetime-local" />
      <label class="field"><span>A page</span><select name="limit">${["20","50","200"].map(t=>r`<option value=${t} selected=${t===n.limit}>${t}</option>`)}</select></label>
      <button type="submit">Filter</button>
    </form>
    <${u} error=${o} />
    ${c&&r`<div class="table-wrap" tabindex="0"><table data-audit>
      <caption class="sr-only">Audit log, newest first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Tenant</th><th scope="col">Result</th><th scope="col">Client</th></tr></thead>
      <tbody>${c.items.map(t=>r`<tr key=${t.id} data-entry=${t.id}><td>${h(t.time)}</td>
        <td>${t.actor||"unknown"}${t.actor_kind==="api_key"?" (API key)":""}</td><td data-action>${t.action}</td>
        <td>${t.target_kind?`${t.target_kind}/`:""}${t.target_id||""}</td><td>${t.tenant_id||""}</td>
        <td>${t.result}${t.reason?r`<span class="muted">: ${t.reason}</span>`:""}</td><td>${t.client||""}</td></tr>`)}</tbody>
    </table></div>
    ${c.items.length===0&&r`<p>No entries.</p>`}
    ${d}`}
  </main>`}var x="/api/monitoring/health-checks",F=n=>n.enabled?n.last?.status||"unknown":"disabled";function Y(){let{page:n,error:m,reload:s,pager:c}=f(`${x}?limit=50`),[o,d]=S(),[$,t]=b(!1);k(()=>_(a=>{a==="alert.updated"&&s()}),[s]);let i=async a=>{a.preventDefault();let p=new FormData(a.target),A={name:p.get("name"),type:p.get("type"),target:p.get("target"),...C(p,["interval_s","timeout_ms","expected_status","failure_threshold"])};for(let y of["tenant_id","machine_id"])p.get(y)&&(A[y]=p.get(y));await d(()=>g("POST",x,A))&&(t(!1),s())},e=a=>d(()=>g("DELETE",`${x}/${encodeURIComponent(a.id)}`)).then(s);return r`<main id="main">
    <h1>Health checks</h1>
    ${$?r`<form class="card" onSubmit=${i} aria-label="New health check">
        <${u} error=${o} />
        <div class="grid">
          <${l} name="name" label="Name" error=${o} required maxlength="100" />
          <label class="field"><span>Type</span><select name="type"><option value="http">http (a URL)</option><option value="tcp">tcp (host:port)</option></select></label>
          <${l} name="target" label="Target" error=${o} required />
          <${l} name="interval_s" label="Every (seconds)" error=${o} type="number" min="1" max="86400" placeholder="60" />
          <${l} name="timeout_ms" label="Timeout (ms)" error=${o} type="number" min="100" max="60000" placeholder="5000" />
          <${l} name="failure_threshold" label="Failures before it fails" error=${o} type="number" min="0" max="100" placeholder="3" />
          <${l} name="expected_status" label="HTTP status expected (blank: 2xx or 3xx)" error=${o} type="number" min="0" max="599" />
          <${l} name="tenant_id" label="Tenant (optional)" error=${o} />
          <${l} name="machine_id" label="Machine (optional)" error=${o} />
        </div>
        <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>t(!1)}>Cancel</button>
      </form>`:r`<button class="primary" onClick=${()=>t(!0)}>New health check</button>`}
    <${u} error=${m||!$&&o} />
    ${n&&r`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Health checks</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Probe</th><th scope="col">State</th><th scope="col">Last probe</th><th scope="col">Actions</th></tr></thead>
      <tbody>${n.items.map(a=>r`<tr key=${a.id} data-check=${a.name}><td>${a.name}</td>
        <td>${a.type} ${a.target}, every ${a.interval_s} s</td>
        <td><${v} value=${F(a)} />${a.last?.consecutive_failures?` ${a.last.consecutive_failures} failed in a row`:""}</td>
        <td>${a.last?.checked_at?`${h(a.last.checked_at)}, ${Math.round(a.last.latency_ms)} ms`:"not yet"}${a.last?.error?r`<span class="muted">: ${a.last.error}</span>`:""}</td>
        <td><${w} name="delete-check" label="Delete" yes="Yes, delete" question=${`Delete the check ${a.name}? Its alert resolves.`} onYes=${()=>e(a)} /></td></tr>`)}</tbody>
    </table></div>
    ${n.items.length===0&&r`<p>No health checks yet.</p>`}
    ${c}`}
    <${N} />
  </main>`}function N(){let[n,m]=b("firing"),{page:s,error:c,reload:o,pager:d}=f(`/api/monitoring/alerts/events?kind=health_check&limit=50&status=${n}`),[$,t]=S();k(()=>_(e=>{e==="alert.updated"&&o()}),[o]);let i=e=>t(()=>g("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(e.id)}`,{status:"acknowledged"})).then(o);return r`<${T} id="check-alerts" title="Alert events of the checks">
    <div class="inline-form" role="group" aria-label="Status">
      ${["firing","acknowledged","resolved"].map(e=>r`<button type="button" aria-pressed=${e===n?"true":"false"} onClick=${()=>m(e)}>${e}</button>`)}
    </div>
    <${u} error=${c||$} />
    ${s&&(s.items.length===0?r`<p>No ${n} alert events.</p>`:r`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${s.items.map(e=>r`<tr key=${e.id} data-alert=${e.target_id}><td><span class=${`badge sev-${e.severity}`}>${e.severity}</span></td>
        <td>${e.message}</td><td>${h(e.started_at)}</td>
        <td><${v} value=${e.status} />${e.resolved_at?` ${h(e.resolved_at)}`:""}</td>
        <td>${e.status==="firing"?r`<${w} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>i(e)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
    ${d}
  <//>`}export{L as Audit,Y as Health};
