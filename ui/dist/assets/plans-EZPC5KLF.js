import{a as B,c as v}from"./chunk-MTL65ZAK.js";import{b as P,c as I,d as L,e as U}from"./chunk-QCUTTXXJ.js";import{a as N,b as x,c as D,d as T}from"./chunk-PBPSO6V7.js";import{a as S}from"./chunk-HOYY2OMK.js";import{a as _,l as p,n as k,o as C,r as g,s as y}from"./chunk-E4PU34WH.js";import{g as i}from"./chunk-XGWGEZEQ.js";var b="/api/resources/plans",R=[["cpu_cores","CPU cores",1],["memory_mb","Memory (MB)",128],["disk_gb","Disk (GB)",1],["ipv4","IPv4 addresses",0]],A=[["ipv6_prefix","IPv6 prefix length",1],["traffic_gb","Traffic a month (GB)",0],["rate_mbps","Rate (Mbit/s)",0],["backups","Backups",0],["snapshots","Snapshots",0]],w=(t,c="")=>t==null?"no bound":`${t}${c}`;function G(t,c,s){let r=new FormData(t),a={name:String(r.get("name")).trim()};for(let[o]of R)r.get(o)!==""&&(a[o]=Number(r.get(o)));for(let[o]of A)r.get(o)!==""?a[o]=Number(r.get(o)):s&&(a[o]=null);let d=r.getAll("allowed_templates").map(String);(d.length||s)&&(a.allowed_templates=d);let l=String(r.get("location_id")||"default");if(s?a.location_id=l==="default"?null:l:l!=="default"&&(a.location_id=l),!s)return a;let m={},f={...s,location_id:s.location_id&&s.location_id!=="default"?s.location_id:null};for(let[o,$]of Object.entries(a))JSON.stringify($)!==JSON.stringify(f[o]??(o==="allowed_templates"?[]:null))&&(m[o]=$);return m}function E({plan:t,onDone:c,onCancel:s}){let r=N(D),{items:a}=P(),[d,l]=_(t?.location_id||"default"),[m,f]=v(),o=async n=>{n.preventDefault();let u=G(n.target,r,t);await f(()=>t?p("PATCH",`${b}/${encodeURIComponent(t.id)}`,u):p("POST",b,u))&&c()},$=new Set(t?.allowed_templates||[]),e=t?`Change plan ${t.name}`:"New plan";return i`<form class="card" onSubmit=${o} aria-label=${e}>
    <h2>${e}</h2>
    <${g} error=${m||r?.error} />
    <div class="grid">
      <${y} name="name" label="Name" error=${m} required maxlength="100" defaultValue=${t?.name} />
      ${R.map(([n,u,h])=>i`<${y} name=${n} label=${u} error=${m} type="number" min=${h} required=${n!=="ipv4"} defaultValue=${t?.[n]} />`)}
      ${A.map(([n,u,h])=>i`<${y} name=${n} label=${`${u} (blank: no bound)`} error=${m} type="number" min=${h} defaultValue=${t?.[n]??void 0} />`)}
      <${U} items=${a} error=${m} value=${d} onChange=${n=>l(n.target.value)} />
    </div>
    <fieldset aria-describedby=${m?.fields?.allowed_templates?"allowed_templates-error":void 0}>
      <legend>Templates allowed (none ticked: every template of its location)</legend>
      ${(r?.items||[]).filter(L(d)).map(n=>i`<label class="check"><input type="checkbox" name="allowed_templates" value=${n.id} defaultChecked=${$.has(n.id)} /> ${n.name}</label>`)}
      ${m?.fields?.allowed_templates&&i`<span class="field-error" id="allowed_templates-error">${m.fields.allowed_templates}</span>`}
    </fieldset>
    <button type="submit" class="primary">${t?"Save":"Create"}</button> <button type="button" onClick=${s}>Cancel</button>
  </form>`}function M({plan:t}){let[c,s]=_(null),[r,a]=v(),d=()=>a(async()=>s(await p("GET",`${b}/${encodeURIComponent(t.id)}/capacity`)));return c?i`<div data-capacity-of=${t.name}>
    <p><strong data-fits>${c.total}</strong> more fit (overcommit: CPU ${c.overcommit.cpu}×, memory ${c.overcommit.memory}×, disk ${c.overcommit.disk}×).</p>
    <ul>${c.nodes.map(l=>i`<li key=${l.node}>${l.node}${l.online?"":" (offline)"}: ${l.fits} (free ${l.free_cpu_cores} CPU, ${k(l.free_memory_mb)}, ${C(l.free_disk_gb)})</li>`)}</ul>
    <button type="button" onClick=${()=>s(null)}>Hide</button>
  </div>`:i`<${g} error=${r} /><button type="button" data-capacity=${t.name} onClick=${d}>Capacity</button>`}function Y(){let{page:t,error:c,reload:s,pager:r}=B(`${b}?limit=50`),[a,d]=_(null),[l,m]=v(),{names:f}=P(),o=()=>{d(null),x(T),s()},$=e=>m(()=>p("DELETE",`${b}/${encodeURIComponent(e.id)}`)).then(n=>n&&o());return i`<main id="main">
    <h1>Plans</h1>
    ${a==="new"?i`<${E} onDone=${o} onCancel=${()=>d(null)} />`:a?i`<${E} key=${a.id} plan=${a} onDone=${o} onCancel=${()=>d(null)} />`:i`<button class="primary" onClick=${()=>d("new")}>New plan</button>`}
    <${g} error=${c||l} />
    ${t&&i`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Plans</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Addresses</th><th scope="col">Traffic, rate</th>
        <th scope="col">Backups, snapshots</th><th scope="col">Templates</th><th scope="col">Location</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(e=>i`<tr key=${e.id} data-plan=${e.name}><td>${e.name}</td>
        <td data-size>${e.cpu_cores} CPU, ${k(e.memory_mb)}, ${C(e.disk_gb)}</td>
        <td>${e.ipv4} IPv4${e.ipv6_prefix!=null?`, an IPv6 /${e.ipv6_prefix}`:""}</td>
        <td>${w(e.traffic_gb," GB")}, ${w(e.rate_mbps," Mbit/s")}</td><td>${w(e.backups)}, ${w(e.snapshots)}</td>
        <td>${e.allowed_templates?.length?e.allowed_templates.join(", "):"every one"}</td>
        <td data-location>${I(f,e.location_id)}</td>
        <td class="row-actions"><button type="button" data-edit=${e.name} onClick=${()=>d(e)}>Edit</button>
          <${S} name="delete-plan" label="Delete" yes="Yes, delete" question=${`Delete plan ${e.name}?`} onYes=${()=>$(e)} />
          <${M} plan=${e} /></td></tr>`)}</tbody>
    </table></div>
    ${t.items.length===0&&i`<p>No plans yet.</p>`}
    ${r}`}
  </main>`}export{Y as Plans};
