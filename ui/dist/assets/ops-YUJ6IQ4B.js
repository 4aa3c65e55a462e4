import{b as C}from"./chunk-MIMHD4HQ.js";import{a as _,b as P,c as x}from"./chunk-TBCE6UEU.js";import{a as E,b as R}from"./chunk-JV7NVBOQ.js";import{a as A}from"./chunk-HOYY2OMK.js";import{a as v,b as k,c as q,l as g,p as y,q as T,r as f,s as l,u as D}from"./chunk-E4PU34WH.js";import{g as r}from"./chunk-XGWGEZEQ.js";var F=a=>a?new Date(a).toISOString():"",U=[["actor","Actor (user or key id)"],["action","Action (POST /api/...)"],["target","Target (id or kind/id)"]];function G(){let[a,d]=v({limit:"50"}),i=new URLSearchParams(Object.entries(a).filter(([,t])=>t)),{page:o,error:n,pager:c}=_(`/api/audit?${i}`);return r`<main id="main">
    <h1>Audit log</h1>
    <form class="filters" onSubmit=${t=>{t.preventDefault();let s=new FormData(t.target),u={limit:String(s.get("limit"))};for(let[m]of U)u[m]=String(s.get(m)).trim();u.since=F(s.get("since")),u.until=F(s.get("until")),d(u)}} role="search" aria-label="Filter the audit log">
      ${U.map(([t,s])=>r`<${l} name=${t} label=${s} error=${n} />`)}
      <${l} name="since" label="Since" error=${n} type="datetime-local" />
      <${l} name="until" label="Until" error=${n} type="datetime-local" />
      <label class="field"><span>A page</span><select name="limit">${["20","50","200"].map(t=>r`<option value=${t} selected=${t===a.limit}>${t}</option>`)}</select></label>
      <button type="submit">Filter</button>
    </form>
    <${f} error=${n} />
    ${o&&r`<div class="table-wrap" tabindex="0"><table data-audit>
      <caption class="sr-only">Audit log, newest first</caption>
      <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Tenant</th><th scope="col">Result</th><th scope="col">Client</th></tr></thead>
      <tbody>${o.items.map(t=>r`<tr key=${t.id} data-entry=${t.id}><td>${y(t.time)}</td>
        <td>${t.actor||"unknown"}${t.actor_kind==="api_key"?" (API key)":""}</td><td data-action>${t.action}</td>
        <td>${t.target_kind?`${t.target_kind}/`:""}${t.target_id||""}</td><td>${t.tenant_id||""}</td>
        <td>${t.result}${t.reason?r`<span class="muted">: ${t.reason}</span>`:""}</td><td>${t.client||""}</td></tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&r`<p>No entries.</p>`}
    ${c}`}
  </main>`}var w="/api/monitoring/health-checks",L=a=>a.enabled?a.last?.status||"unknown":"disabled";function J(){let{page:a,error:d,reload:i,pager:o}=_(`${w}?limit=50`),[n,c]=x(),[h,t]=v(!1);k(()=>C(e=>{e==="alert.updated"&&i()}),[i]);let s=async e=>{e.preventDefault();let $=new FormData(e.target),b={name:$.get("name"),type:$.get("type"),target:$.get("target"),...P($,["interval_s","timeout_ms","expected_status","failure_threshold"])};for(let S of["tenant_id","machine_id"])$.get(S)&&(b[S]=$.get(S));await c(()=>g("POST",w,b))&&(t(!1),i())},u=e=>c(()=>g("DELETE",`${w}/${encodeURIComponent(e.id)}`)).then(i),[m,p]=v(null);return r`<main id="main">
    <h1>Health checks</h1>
    ${h?r`<form class="card" onSubmit=${s} aria-label="New health check">
        <${f} error=${n} />
        <div class="grid">
          <${l} name="name" label="Name" error=${n} required maxlength="100" />
          <label class="field"><span>Type</span><select name="type"><option value="http">http (a URL)</option><option value="tcp">tcp (host:port)</option></select></label>
          <${l} name="target" label="Target" error=${n} required />
          <${l} name="interval_s" label="Every (seconds)" error=${n} type="number" min="1" max="86400" placeholder="60" />
          <${l} name="timeout_ms" label="Timeout (ms)" error=${n} type="number" min="100" max="60000" placeholder="5000" />
          <${l} name="failure_threshold" label="Failures before it fails" error=${n} type="number" min="0" max="100" placeholder="3" />
          <${l} name="expected_status" label="HTTP status expected (blank: 2xx or 3xx)" error=${n} type="number" min="0" max="599" />
          <${l} name="tenant_id" label="Tenant (optional)" error=${n} />
          <${l} name="machine_id" label="Machine (optional)" error=${n} />
        </div>
        <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>t(!1)}>Cancel</button>
      </form>`:r`<button class="primary" onClick=${()=>t(!0)}>New health check</button>`}
    <${f} error=${d||!h&&n} />
    ${a&&r`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Health checks</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Probe</th><th scope="col">State</th><th scope="col">Last probe</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.items.map(e=>r`<tr key=${e.id} data-check=${e.name}><td>${e.name}</td>
        <td>${e.type} ${e.target}, every ${e.interval_s} s</td>
        <td><${T} value=${L(e)} />${e.last?.consecutive_failures?` ${e.last.consecutive_failures} failed in a row`:""}</td>
        <td>${e.last?.checked_at?`${y(e.last.checked_at)}, ${Math.round(e.last.latency_ms)} ms`:"not yet"}${e.last?.error?r`<span class="muted">: ${e.last.error}</span>`:""}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${m===e.id?"true":"false"} onClick=${()=>p(m===e.id?null:e.id)}>Edit</button>
          <${A} name="delete-check" label="Delete" yes="Yes, delete" question=${`Delete the check ${e.name}? Its alert resolves.`} onYes=${()=>u(e)} /></td></tr>
        ${m===e.id&&r`<tr key=${`${e.id}-edit`} class="edit-row"><td colspan="5">
          <${N} c=${e} onCancel=${()=>p(null)} onSaved=${()=>{p(null),i()}} />
        </td></tr>`}`)}</tbody>
    </table></div>
    ${a.items.length===0&&r`<p>No health checks yet.</p>`}
    ${o}`}
    <${I} />
  </main>`}function N({c:a,onSaved:d,onCancel:i}){let[o,n]=x(),c=q(null);return k(()=>{c.current?.focus()},[]),r`<form onSubmit=${async t=>{t.preventDefault();let s=new FormData(t.target),u={name:String(s.get("name")).trim(),target:String(s.get("target")).trim(),enabled:s.get("enabled")==="on",...P(s,["interval_s","timeout_ms","expected_status","failure_threshold"])},m=Object.fromEntries(Object.entries(u).filter(([p,e])=>e!==a[p]));if(Object.keys(m).length===0){i();return}await n(()=>g("PATCH",`${w}/${encodeURIComponent(a.id)}`,m))&&d()}} aria-label=${`Edit ${a.name}`} onKeyDown=${t=>t.key==="Escape"&&i()}>
    <${f} error=${o} />
    <div class="grid">
      <${l} name="name" label="Name" error=${o} defaultValue=${a.name} inputRef=${c} required maxlength="100" />
      <${l} name="target" label=${a.type==="tcp"?"Target (host:port)":"Target (a URL)"} error=${o} defaultValue=${a.target} required />
      <${l} name="interval_s" label="Every (seconds)" error=${o} type="number" min="1" max="86400" defaultValue=${a.interval_s} required />
      <${l} name="timeout_ms" label="Timeout (ms)" error=${o} type="number" min="100" max="60000" defaultValue=${a.timeout_ms} required />
      <${l} name="failure_threshold" label="Failures before it fails" error=${o} type="number" min="1" max="100" defaultValue=${a.failure_threshold} required />
      <${l} name="expected_status" label="HTTP status expected (0: 2xx or 3xx)" error=${o} type="number" min="0" max="599" defaultValue=${a.expected_status} required />
    </div>
    <label class="check"><input type="checkbox" name="enabled" defaultChecked=${a.enabled} /> Enabled</label>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${i}>Cancel</button>
  </form>`}var O=["health_check","node_offline","task_failed","node_usage_high","firewall_failed","hypervisor_unavailable","webhook_disabled","traffic_exceeded"];function H(a){let d=new URLSearchParams(a.split("?")[1]||"");return{status:d.get("status")||"firing",severity:d.get("severity")||"",kind:d.get("kind")||"health_check"}}function I(){let{status:a,severity:d,kind:i}=H(E.value),o=(e,$)=>{let b=new URLSearchParams({status:a,severity:d,kind:i,[e]:$});b.get("severity")||b.delete("severity"),R(`/admin/health?${b}`,!0,!0)},n=new URLSearchParams({limit:"50",status:a});d&&n.set("severity",d),i!=="all"&&n.set("kind",i);let{page:c,error:h,reload:t,pager:s}=_(`/api/monitoring/alerts/events?${n}`),[u,m]=x();k(()=>C(e=>{e==="alert.updated"&&t()}),[t]);let p=e=>m(()=>g("PATCH",`/api/monitoring/alerts/events/${encodeURIComponent(e.id)}`,{status:"acknowledged"})).then(t);return r`<${D} id="check-alerts" title="Alert events">
    <div class="inline-form" role="group" aria-label="Status">
      ${["firing","acknowledged","resolved"].map(e=>r`<button type="button" aria-pressed=${e===a?"true":"false"} onClick=${()=>o("status",e)}>${e}</button>`)}
    </div>
    <div class="filters">
      <label class="field"><span>Severity</span><select name="severity" value=${d} onChange=${e=>o("severity",e.target.value)}>
        ${["","info","warning","critical"].map(e=>r`<option value=${e}>${e||"any"}</option>`)}</select></label>
      <label class="field"><span>Kind</span><select name="kind" value=${i} onChange=${e=>o("kind",e.target.value)}>
        ${[...O,"all"].map(e=>r`<option value=${e}>${e==="all"?"any":e.replace(/_/g," ")}</option>`)}</select></label>
    </div>
    <${f} error=${h||u} />
    ${c&&(c.items.length===0?r`<p>No ${a} alert events.</p>`:r`<div class="table-wrap" tabindex="0"><table data-alerts>
      <thead><tr><th scope="col">Severity</th><th scope="col">What</th><th scope="col">Since</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
      <tbody>${c.items.map(e=>r`<tr key=${e.id} data-alert=${e.target_id}><td><span class=${`badge sev-${e.severity}`}>${e.severity}</span></td>
        <td>${e.message}${i==="all"?r` <span class="muted">${e.kind.replace(/_/g," ")}</span>`:""}</td><td>${y(e.started_at)}</td>
        <td><${T} value=${e.status} />${e.resolved_at?` ${y(e.resolved_at)}`:""}</td>
        <td>${e.status==="firing"?r`<${A} name="ack" label="Acknowledge" yes="Yes, I am on it" question="Acknowledge this alert?" onYes=${()=>p(e)} />`:""}</td></tr>`)}</tbody>
    </table></div>`)}
    ${s}
  <//>`}export{G as Audit,J as Health};
