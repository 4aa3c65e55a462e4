import{a as x,c as v}from"./chunk-HAU356BQ.js";import{a as y}from"./chunk-2POUUWF6.js";import{a as k}from"./chunk-HQUNSCRM.js";import{a as g,b as D,c as _,k as h,q as b,r as m}from"./chunk-GBUNNUYN.js";import{g as s}from"./chunk-XGWGEZEQ.js";var V="/api/resources/locations?limit=200";function L(e=!0){let r=y(e?V:null),l=Object.fromEntries((r?.items||[]).map(a=>[a.id,a.name]));return{list:r,items:r?.items||[],names:l}}var N=(e,r)=>e[r||"default"]||r||"default";function w({name:e="location_id",label:r="Location",items:l,error:a,none:t,value:c,onChange:$,defaultValue:u}){let o=a?.fields?.[e];return s`<label class="field"><span>${r}</span>
    <select name=${e} value=${c} onChange=${$}
      aria-invalid=${o?"true":void 0} aria-describedby=${o?`${e}-error`:void 0}>
      ${t&&s`<option value="">${t}</option>`}
      ${l.map(i=>s`<option value=${i.id} selected=${c===void 0&&u===i.id}>${i.name}${i.default?" (default)":""}</option>`)}
    </select>${o&&s`<span class="field-error" id=${`${e}-error`}>${o}</span>`}</label>`}var P="/api/resources/ip-pools",j="/api/virt/nodes?limit=500",E=e=>`${P}/${encodeURIComponent(e.id)}`,I=e=>String(e||"").split(/[\s,]+/).filter(Boolean),R=({error:e,defaultValue:r})=>s`<${m} name="node" label="Node (blank: any node)" error=${e}
  list="pool-nodes" autocomplete="off" defaultValue=${r} />`;function q({locations:e,onAdded:r}){let[l,a]=g(!1),[t,c]=v(),$=async u=>{u.preventDefault();let o=new FormData(u.target),i={name:String(o.get("name")).trim(),cidr:String(o.get("cidr")).trim(),gateway:String(o.get("gateway")).trim()},d=String(o.get("node")).trim();d&&(i.node=d);let f=I(o.get("dns"));f.length&&(i.dns=f),o.get("location_id")&&(i.location_id=o.get("location_id")),await c(()=>h("POST",P,i))&&(a(!1),r())};return l?s`<form class="card" onSubmit=${$} aria-label="New pool">
    <h2>New pool</h2>
    <${b} error=${t} />
    <div class="grid">
      <${m} name="name" label="Name" error=${t} required maxlength="100" />
      <${m} name="cidr" label="Range (CIDR: IPv4 /8 to /30, IPv6 /16 to /64)" error=${t} required placeholder="192.0.2.0/24" />
      <${m} name="gateway" label="Gateway" error=${t} required placeholder="192.0.2.1" />
      <${R} error=${t} />
      <${m} name="dns" label="DNS resolvers (blank: none)" error=${t} placeholder="192.0.2.53, 192.0.2.54" />
      <${w} items=${e} error=${t} defaultValue="default" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>a(!1)}>Cancel</button>
  </form>`:s`<button class="primary" onClick=${()=>a(!0)}>New pool</button>`}function A({pool:e,locations:r,onSaved:l,onCancel:a}){let[t,c]=v(),$=_(null);return D(()=>{$.current?.focus()},[]),s`<form onSubmit=${async o=>{o.preventDefault();let i=new FormData(o.target),d={};for(let S of["name","gateway"]){let C=String(i.get(S)).trim();C!==e[S]&&(d[S]=C)}let f=String(i.get("node")).trim();f!==(e.node||"")&&(d.node=f||null);let p=I(i.get("dns"));p.join(" ")!==(e.dns||[]).join(" ")&&(d.dns=p.length?p:null);let n=i.get("location_id")||"default";if(n!==(e.location_id||"default")&&(d.location_id=n==="default"?null:n),Object.keys(d).length===0){a();return}await c(()=>h("PATCH",E(e),d))&&l()}} aria-label=${`Edit pool ${e.name}`} onKeyDown=${o=>o.key==="Escape"&&a()}>
    <${b} error=${t} />
    <div class="grid">
      <${m} name="name" label="Name" error=${t} required maxlength="100" defaultValue=${e.name} inputRef=${$} />
      <${m} name="gateway" label="Gateway" error=${t} required defaultValue=${e.gateway} />
      <${R} error=${t} defaultValue=${e.node||""} />
      <${m} name="dns" label="DNS resolvers (blank: none)" error=${t} defaultValue=${(e.dns||[]).join(", ")} />
      <${w} items=${r} error=${t} defaultValue=${e.location_id||"default"} />
    </div>
    <p class="muted">The range (${e.cidr}) never changes. A pool with addresses held stays in its location.</p>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${a}>Cancel</button>
  </form>`}function F({pool:e,names:r,locations:l,editing:a,onEdit:t,onChanged:c}){let[$,u]=v(),o=async()=>{await u(()=>h("DELETE",E(e)))&&c()},i=a||$;return s`<tr data-pool=${e.name}><td>${e.name}</td>
      <td data-cidr>${e.cidr} <span class="muted">IPv${e.version}</span></td><td data-gateway>${e.gateway}</td>
      <td data-node>${e.node||"any"}</td><td data-dns>${(e.dns||[]).join(", ")||"none"}</td>
      <td data-location>${N(r,e.location_id)}</td>
      <td data-allocated>${e.allocated} ${e.version===6?"prefixes":"addresses"}</td>
      <td class="row-actions">
        <button type="button" data-edit=${e.name} aria-expanded=${a?"true":"false"} onClick=${t}>Edit</button>
        <${k} name="delete-pool" label="Delete" yes="Yes, delete" question=${`Delete pool ${e.name}?`} onYes=${o} />
      </td></tr>
    ${i&&s`<tr class="edit-row" data-pool-more=${e.name}><td colspan="8">
      <${b} error=${!a&&$} />
      ${a&&s`<${A} pool=${e} locations=${l} onSaved=${c} onCancel=${t} />`}
    </td></tr>`}`}function Q(){let[e,r]=g(""),{page:l,error:a,reload:t,pager:c}=x(`${P}?limit=50${e?`&location=${encodeURIComponent(e)}`:""}`),{list:$,items:u,names:o}=L(),i=y(j),[d,f]=g(null),p=()=>{f(null),t()};return s`<main id="main">
    <h1>IP pools</h1>
    <datalist id="pool-nodes">${(i?.items||[]).map(n=>s`<option value=${n.id}>${n.name}${n.location_id&&n.location_id!=="default"?` (${N(o,n.location_id)})`:""}</option>`)}</datalist>
    <${q} locations=${u} onAdded=${t} />
    <form class="filters" role="search" aria-label="Filter pools" onSubmit=${n=>n.preventDefault()}>
      <${w} name="location" label="Location" items=${u} none="every location" value=${e} onChange=${n=>r(n.target.value)} />
    </form>
    <${b} error=${a||$?.error} />
    ${l&&s`<div class="table-wrap" tabindex="0"><table data-pools>
      <caption class="sr-only">IP pools</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Range</th><th scope="col">Gateway</th><th scope="col">Node</th>
        <th scope="col">DNS</th><th scope="col">Location</th><th scope="col">Allocated</th><th scope="col">Actions</th></tr></thead>
      <tbody>${l.items.map(n=>s`<${F} key=${n.id} pool=${n} names=${o} locations=${u}
        editing=${d===n.id} onEdit=${()=>f(d===n.id?null:n.id)} onChanged=${p} />`)}</tbody>
    </table></div>
    ${l.items.length===0&&s`<p>No pools${e?" in this location":" yet"}.</p>`}
    ${c}`}
  </main>`}export{Q as IPPools};
