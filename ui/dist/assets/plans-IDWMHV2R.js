import{a as N,c as h}from"./chunk-TBCE6UEU.js";import{a as v,b as C,c as P,d as S}from"./chunk-PBPSO6V7.js";import{a as k}from"./chunk-HOYY2OMK.js";import{a as g,l as u,n as _,o as w,r as f,s as b}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var p="/api/resources/plans",D=[["cpu_cores","CPU cores",1],["memory_mb","Memory (MB)",128],["disk_gb","Disk (GB)",1],["ipv4","IPv4 addresses",0]],T=[["ipv6_prefix","IPv6 prefix length",1],["traffic_gb","Traffic a month (GB)",0],["rate_mbps","Rate (Mbit/s)",0],["backups","Backups",0],["snapshots","Snapshots",0]],y=(t,i="")=>t==null?"no bound":`${t}${i}`;function I(t,i,c){let s=new FormData(t),o={name:String(s.get("name")).trim()};for(let[a]of D)s.get(a)!==""&&(o[a]=Number(s.get(a)));for(let[a]of T)s.get(a)!==""?o[a]=Number(s.get(a)):c&&(o[a]=null);let m=s.getAll("allowed_templates").map(String);if((m.length||c)&&(o.allowed_templates=m),!c)return o;let r={};for(let[a,d]of Object.entries(o))JSON.stringify(d)!==JSON.stringify(c[a]??(a==="allowed_templates"?[]:null))&&(r[a]=d);return r}function x({plan:t,onDone:i,onCancel:c}){let s=v(P),[o,m]=h(),r=async l=>{l.preventDefault();let e=I(l.target,s,t);await m(()=>t?u("PATCH",`${p}/${encodeURIComponent(t.id)}`,e):u("POST",p,e))&&i()},a=new Set(t?.allowed_templates||[]),d=t?`Change plan ${t.name}`:"New plan";return n`<form class="card" onSubmit=${r} aria-label=${d}>
    <h2>${d}</h2>
    <${f} error=${o||s?.error} />
    <div class="grid">
      <${b} name="name" label="Name" error=${o} required maxlength="100" defaultValue=${t?.name} />
      ${D.map(([l,e,$])=>n`<${b} name=${l} label=${e} error=${o} type="number" min=${$} required=${l!=="ipv4"} defaultValue=${t?.[l]} />`)}
      ${T.map(([l,e,$])=>n`<${b} name=${l} label=${`${e} (blank: no bound)`} error=${o} type="number" min=${$} defaultValue=${t?.[l]??void 0} />`)}
    </div>
    <fieldset aria-describedby=${o?.fields?.allowed_templates?"allowed_templates-error":void 0}>
      <legend>Templates allowed (none ticked: every template)</legend>
      ${(s?.items||[]).map(l=>n`<label class="check"><input type="checkbox" name="allowed_templates" value=${l.id} defaultChecked=${a.has(l.id)} /> ${l.name}</label>`)}
      ${o?.fields?.allowed_templates&&n`<span class="field-error" id="allowed_templates-error">${o.fields.allowed_templates}</span>`}
    </fieldset>
    <button type="submit" class="primary">${t?"Save":"Create"}</button> <button type="button" onClick=${c}>Cancel</button>
  </form>`}function U({plan:t}){let[i,c]=g(null),[s,o]=h(),m=()=>o(async()=>c(await u("GET",`${p}/${encodeURIComponent(t.id)}/capacity`)));return i?n`<div data-capacity-of=${t.name}>
    <p><strong data-fits>${i.total}</strong> more fit (overcommit: CPU ${i.overcommit.cpu}×, memory ${i.overcommit.memory}×, disk ${i.overcommit.disk}×).</p>
    <ul>${i.nodes.map(r=>n`<li key=${r.node}>${r.node}${r.online?"":" (offline)"}: ${r.fits} (free ${r.free_cpu_cores} CPU, ${_(r.free_memory_mb)}, ${w(r.free_disk_gb)})</li>`)}</ul>
    <button type="button" onClick=${()=>c(null)}>Hide</button>
  </div>`:n`<${f} error=${s} /><button type="button" data-capacity=${t.name} onClick=${m}>Capacity</button>`}function V(){let{page:t,error:i,reload:c,pager:s}=N(`${p}?limit=50`),[o,m]=g(null),[r,a]=h(),d=()=>{m(null),C(S),c()},l=e=>a(()=>u("DELETE",`${p}/${encodeURIComponent(e.id)}`)).then($=>$&&d());return n`<main id="main">
    <h1>Plans</h1>
    ${o==="new"?n`<${x} onDone=${d} onCancel=${()=>m(null)} />`:o?n`<${x} key=${o.id} plan=${o} onDone=${d} onCancel=${()=>m(null)} />`:n`<button class="primary" onClick=${()=>m("new")}>New plan</button>`}
    <${f} error=${i||r} />
    ${t&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Plans</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Addresses</th><th scope="col">Traffic, rate</th>
        <th scope="col">Backups, snapshots</th><th scope="col">Templates</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(e=>n`<tr key=${e.id} data-plan=${e.name}><td>${e.name}</td>
        <td data-size>${e.cpu_cores} CPU, ${_(e.memory_mb)}, ${w(e.disk_gb)}</td>
        <td>${e.ipv4} IPv4${e.ipv6_prefix!=null?`, an IPv6 /${e.ipv6_prefix}`:""}</td>
        <td>${y(e.traffic_gb," GB")}, ${y(e.rate_mbps," Mbit/s")}</td><td>${y(e.backups)}, ${y(e.snapshots)}</td>
        <td>${e.allowed_templates?.length?e.allowed_templates.join(", "):"every one"}</td>
        <td class="row-actions"><button type="button" data-edit=${e.name} onClick=${()=>m(e)}>Edit</button>
          <${k} name="delete-plan" label="Delete" yes="Yes, delete" question=${`Delete plan ${e.name}?`} onYes=${()=>l(e)} />
          <${U} plan=${e} /></td></tr>`)}</tbody>
    </table></div>
    ${t.items.length===0&&n`<p>No plans yet.</p>`}
    ${s}`}
  </main>`}export{V as Plans};
