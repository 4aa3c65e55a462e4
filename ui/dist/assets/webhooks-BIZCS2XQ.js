import{a as C,c as v,d as O}from"./chunk-MTL65ZAK.js";import{a as w,e as x}from"./chunk-PBPSO6V7.js";import{a as N}from"./chunk-HOYY2OMK.js";import{a as h,b as D,l as m,p as y,q as T,r as b,s as f}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var E="/api/resources/webhooks",_=e=>`${E}/${encodeURIComponent(e.id)}`,A=[["machine.updated","a machine changed (status, sizes, addresses)"],["machine.deleted","a machine deleted"],["machine.terminated","a machine terminated"],["machine.traffic_exceeded","a machine past its traffic allowance"],["task.updated","a task started, progressed or ended"],["alert.updated","an alert fired, was acknowledged or resolved"],["tenant.suspended","the tenant suspended"],["tenant.unsuspended","the tenant unsuspended"]],S="*";function P({error:e,chosen:a}){let[i,s]=h(a?a.includes(S):!0),o=e?.fields?.events;return n`<fieldset aria-describedby=${o?"events-error":void 0}>
    <legend>Events</legend>
    <label class="check"><input type="checkbox" name="events" value=${S} checked=${i} onChange=${l=>s(l.target.checked)} /> Every event</label>
    ${!i&&A.map(([l,$])=>n`<label class="check"><input type="checkbox" name="events" value=${l} defaultChecked=${a?.includes(l)} /> <code>${l}</code>: ${$}</label>`)}
    ${o&&n`<span class="field-error" id="events-error">${o}</span>`}
  </fieldset>`}function R(e){let a=e.getAll("events").map(String);return a.includes(S)?[S]:a}function F({admin:e,onMade:a}){let[i,s]=h(!1),[o,l]=v(),$=w(e?x:null),d=async r=>{r.preventDefault();let t=new FormData(r.target),c={url:String(t.get("url")).trim(),events:R(t),enabled:t.get("enabled")==="on"};String(t.get("secret"))&&(c.secret=String(t.get("secret"))),e&&t.get("tenant_id")&&(c.tenant_id=String(t.get("tenant_id")));let p;await l(async()=>{p=await m("POST",E,c)})&&(s(!1),a(p))};return i?n`<form class="card" onSubmit=${d} aria-label="New webhook">
    <h2>New webhook</h2>
    <${b} error=${o} />
    <div class="grid">
      <${f} name="url" label="URL (http or https)" error=${o} type="url" required maxlength="2048" autocomplete="off" spellcheck="false" />
      <${f} name="secret" label="Secret (blank: one is made; 16 to 200 characters)" error=${o} minlength="16" maxlength="200" autocomplete="off" spellcheck="false" />
      ${e&&n`<label class="field"><span>Tenant</span><select name="tenant_id" aria-invalid=${o?.fields?.tenant_id?"true":void 0}>
        <option value="">every tenant's events</option>
        ${($?.items||[]).map(r=>n`<option value=${r.id}>${r.name}</option>`)}</select>
        ${o?.fields?.tenant_id&&n`<span class="field-error">${o.fields.tenant_id}</span>`}</label>`}
    </div>
    <${P} error=${o} />
    <label class="check"><input type="checkbox" name="enabled" defaultChecked /> Enabled</label>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>s(!1)}>Cancel</button>
  </form>`:n`<button class="primary" onClick=${()=>s(!0)}>New webhook</button>`}function L({w:e,onSaved:a,onCancel:i}){let[s,o]=v(),l=O();return n`<form onSubmit=${async d=>{d.preventDefault();let r=new FormData(d.target),t={},c=String(r.get("url")).trim();c!==e.url&&(t.url=c);let p=R(r);JSON.stringify([...p].sort())!==JSON.stringify([...e.events].sort())&&(t.events=p),String(r.get("secret"))&&(t.secret=String(r.get("secret")));let g=r.get("enabled")==="on";if(g!==e.enabled&&(t.enabled=g),Object.keys(t).length===0){i();return}await o(()=>m("PATCH",_(e),t))&&a()}} aria-label=${`Edit webhook ${e.url}`} onKeyDown=${d=>d.key==="Escape"&&i()}>
    <${b} error=${s} />
    <div class="grid">
      <${f} name="url" label="URL" error=${s} type="url" required maxlength="2048" defaultValue=${e.url} inputRef=${l} spellcheck="false" />
      <${f} name="secret" label="New secret (blank: unchanged)" error=${s} minlength="16" maxlength="200" autocomplete="off" spellcheck="false" />
    </div>
    <${P} error=${s} chosen=${e.events} />
    <label class="check"><input type="checkbox" name="enabled" defaultChecked=${e.enabled} /> Enabled${e.disabled_reason?" (enabling it clears its failures in a row)":""}</label>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${i}>Cancel</button>
  </form>`}var U=e=>`${y(e.at)}: ${e.status_code?`HTTP ${e.status_code}`:e.error||"no answer"} (${e.duration_ms} ms)`;function W({w:e}){let{page:a,error:i,reload:s,pager:o}=C(`${_(e)}/deliveries?limit=20`),[l,$]=v(),d=a?.items.some(t=>t.status==="pending");D(()=>{if(!d)return;let t=setTimeout(s,3e3);return()=>clearTimeout(t)},[a]);let r=t=>$(()=>m("POST",`${_(e)}/deliveries/${encodeURIComponent(t.id)}/redeliver`)).then(c=>c&&s());return n`<section aria-label=${`Deliveries of ${e.url}`} data-deliveries=${e.id}>
    <h3>Deliveries</h3>
    <${b} error=${i||l} />
    <button type="button" data-refresh onClick=${s}>Refresh</button>
    ${a&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Deliveries of ${e.url}</caption>
      <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.items.map(t=>n`<tr key=${t.id} data-delivery=${t.id} data-event-type=${t.event_type} data-status=${t.status}>
        <td><code>${t.event_type}</code><br /><span class="muted">${y(t.created_at)}</span></td>
        <td><${T} value=${t.status} />${t.error?n`<br /><span class="muted">${t.error}</span>`:""}</td>
        <td data-attempts=${t.attempts.length}>${t.attempts.length===0?"none yet":n`<ol>${t.attempts.map(c=>n`<li data-code=${c.status_code||""}>${U(c)}</li>`)}</ol>`}</td>
        <td>${t.status==="pending"&&t.next_attempt_at?y(t.next_attempt_at):""}</td>
        <td><button type="button" data-redeliver=${t.id} disabled=${!e.enabled} onClick=${()=>r(t)}>Send again</button></td>
      </tr>`)}</tbody>
    </table></div>
    ${a.items.length===0&&n`<p>No deliveries yet: one is made for each event the webhook names.</p>`}
    ${o}`}
  </section>`}function j({w:e,admin:a,tenant:i,open:s,onOpen:o,onChanged:l}){let[$,d]=v(),r=async()=>{await d(()=>m("DELETE",_(e)))&&l()},t=a?5:4;return n`<tr data-webhook=${e.url}><td><code>${e.url}</code></td>
      <td data-events>${e.events.join(", ")}</td>
      ${a&&n`<td>${e.tenant_id?i||e.tenant_id:"every tenant"}</td>`}
      <td data-webhook-state>${e.enabled?"enabled":"disabled"}${e.disabled_reason?n`<br /><span class="muted">${e.disabled_reason}</span>`:""}
        ${e.failed_in_row?n`<br /><span class="muted">${e.failed_in_row} failed in a row</span>`:""}</td>
      <td class="row-actions">
        <button type="button" data-edit aria-expanded=${s==="edit"?"true":"false"} onClick=${()=>o("edit")}>Edit</button>
        <button type="button" data-show-deliveries aria-expanded=${s==="log"?"true":"false"} onClick=${()=>o("log")}>Deliveries</button>
        <${N} name="delete-webhook" label="Delete" yes="Yes, delete" question=${`Delete the webhook to ${e.url} and its delivery log?`} onYes=${r} />
      </td></tr>
    ${(s||$)&&n`<tr class="edit-row" data-webhook-more=${e.url}><td colspan=${t}>
      <${b} error=${$} />
      ${s==="edit"&&n`<${L} w=${e} onSaved=${l} onCancel=${()=>o("edit")} />`}
      ${s==="log"&&n`<${W} w=${e} />`}
    </td></tr>`}`}function z({admin:e}){let{page:a,error:i,reload:s,pager:o}=C(`${E}?limit=50`),l=w(e?x:null),$=Object.fromEntries((l?.items||[]).map(u=>[u.id,u.name])),[d,r]=h(null),[t,c]=h({id:null,what:null}),p=(u,k)=>c(t.id===u.id&&t.what===k?{id:null,what:null}:{id:u.id,what:k}),g=()=>{c({id:null,what:null}),s()};return n`<main id="main">
    <h1>Webhooks</h1>
    <p class="muted">${e?"A webhook gets every tenant's events, or one tenant's.":"A webhook gets your tenant's events."}
      Each event is POSTed as JSON, signed in <code>Vmplane-Signature</code> with the webhook's secret, and retried for a day until the receiver answers 2xx.</p>
    <${F} admin=${e} onMade=${u=>{r(u),s()}} />
    ${d&&n`<div class="card" role="status" data-made>
      <p>The secret of the webhook to <code>${d.url}</code>, shown only now: keep it to check the signatures.</p>
      <p><code data-webhook-secret>${d.secret}</code></p><button type="button" onClick=${()=>r(null)}>Done</button></div>`}
    <${b} error=${i} />
    ${a&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Webhooks</caption>
      <thead><tr><th scope="col">URL</th><th scope="col">Events</th>${e&&n`<th scope="col">Tenant</th>`}<th scope="col">State</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.items.map(u=>n`<${j} key=${u.id} w=${u} admin=${e} tenant=${$[u.tenant_id]}
        open=${t.id===u.id?t.what:null} onOpen=${k=>p(u,k)} onChanged=${g} />`)}</tbody>
    </table></div>
    ${a.items.length===0&&n`<p>No webhooks yet.</p>`}
    ${o}`}
  </main>`}export{z as Webhooks};
