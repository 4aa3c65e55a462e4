import{a as _,c as w,d as I}from"./chunk-MTL65ZAK.js";import{b as k,c as S,e as y}from"./chunk-QCUTTXXJ.js";import{a as C}from"./chunk-PBPSO6V7.js";import{a as D}from"./chunk-HOYY2OMK.js";import{a as g,l as h,r as b,s as $}from"./chunk-E4PU34WH.js";import{g as i}from"./chunk-XGWGEZEQ.js";var N="/api/resources/ip-pools",V="/api/virt/nodes?limit=500",x=t=>`${N}/${encodeURIComponent(t.id)}`,E=t=>String(t||"").split(/[\s,]+/).filter(Boolean),R=({error:t,defaultValue:s})=>i`<${$} name="node" label="Node (blank: any node)" error=${t}
  list="pool-nodes" autocomplete="off" defaultValue=${s} />`;function L({locations:t,onAdded:s}){let[d,n]=g(!1),[e,m]=w(),u=async c=>{c.preventDefault();let o=new FormData(c.target),r={name:String(o.get("name")).trim(),cidr:String(o.get("cidr")).trim(),gateway:String(o.get("gateway")).trim()},l=String(o.get("node")).trim();l&&(r.node=l);let f=E(o.get("dns"));f.length&&(r.dns=f),o.get("location_id")&&(r.location_id=o.get("location_id")),await m(()=>h("POST",N,r))&&(n(!1),s())};return d?i`<form class="card" onSubmit=${u} aria-label="New pool">
    <h2>New pool</h2>
    <${b} error=${e} />
    <div class="grid">
      <${$} name="name" label="Name" error=${e} required maxlength="100" />
      <${$} name="cidr" label="Range (CIDR: IPv4 /8 to /30, IPv6 /16 to /64)" error=${e} required placeholder="192.0.2.0/24" />
      <${$} name="gateway" label="Gateway" error=${e} required placeholder="192.0.2.1" />
      <${R} error=${e} />
      <${$} name="dns" label="DNS resolvers (blank: none)" error=${e} placeholder="192.0.2.53, 192.0.2.54" />
      <${y} items=${t} error=${e} defaultValue="default" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>n(!1)}>Cancel</button>
  </form>`:i`<button class="primary" onClick=${()=>n(!0)}>New pool</button>`}function q({pool:t,locations:s,onSaved:d,onCancel:n}){let[e,m]=w(),u=I();return i`<form onSubmit=${async o=>{o.preventDefault();let r=new FormData(o.target),l={};for(let v of["name","gateway"]){let P=String(r.get(v)).trim();P!==t[v]&&(l[v]=P)}let f=String(r.get("node")).trim();f!==(t.node||"")&&(l.node=f||null);let p=E(r.get("dns"));p.join(" ")!==(t.dns||[]).join(" ")&&(l.dns=p.length?p:null);let a=r.get("location_id")||"default";if(a!==(t.location_id||"default")&&(l.location_id=a==="default"?null:a),Object.keys(l).length===0){n();return}await m(()=>h("PATCH",x(t),l))&&d()}} aria-label=${`Edit pool ${t.name}`} onKeyDown=${o=>o.key==="Escape"&&n()}>
    <${b} error=${e} />
    <div class="grid">
      <${$} name="name" label="Name" error=${e} required maxlength="100" defaultValue=${t.name} inputRef=${u} />
      <${$} name="gateway" label="Gateway" error=${e} required defaultValue=${t.gateway} />
      <${R} error=${e} defaultValue=${t.node||""} />
      <${$} name="dns" label="DNS resolvers (blank: none)" error=${e} defaultValue=${(t.dns||[]).join(", ")} />
      <${y} items=${s} error=${e} defaultValue=${t.location_id||"default"} />
    </div>
    <p class="muted">The range (${t.cidr}) never changes. A pool with addresses held stays in its location.</p>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${n}>Cancel</button>
  </form>`}function F({pool:t,names:s,locations:d,editing:n,onEdit:e,onChanged:m}){let[u,c]=w(),o=async()=>{await c(()=>h("DELETE",x(t)))&&m()},r=n||u;return i`<tr data-pool=${t.name}><td>${t.name}</td>
      <td data-cidr>${t.cidr} <span class="muted">IPv${t.version}</span></td><td data-gateway>${t.gateway}</td>
      <td data-node>${t.node||"any"}</td><td data-dns>${(t.dns||[]).join(", ")||"none"}</td>
      <td data-location>${S(s,t.location_id)}</td>
      <td data-allocated>${t.allocated} ${t.version===6?t.allocated===1?"prefix":"prefixes":t.allocated===1?"address":"addresses"}</td>
      <td class="row-actions">
        <button type="button" data-edit=${t.name} aria-expanded=${n?"true":"false"} onClick=${e}>Edit</button>
        <${D} name="delete-pool" label="Delete" yes="Yes, delete" question=${`Delete pool ${t.name}?`} onYes=${o} />
      </td></tr>
    ${r&&i`<tr class="edit-row" data-pool-more=${t.name}><td colspan="8">
      <${b} error=${!n&&u} />
      ${n&&i`<${q} pool=${t} locations=${d} onSaved=${m} onCancel=${e} />`}
    </td></tr>`}`}function H(){let[t,s]=g(""),{page:d,error:n,reload:e,pager:m}=_(`${N}?limit=50${t?`&location=${encodeURIComponent(t)}`:""}`),{list:u,items:c,names:o}=k(),r=C(V),[l,f]=g(null),p=()=>{f(null),e()};return i`<main id="main">
    <h1>IP pools</h1>
    <datalist id="pool-nodes">${(r?.items||[]).map(a=>i`<option value=${a.id}>${a.name}${a.location_id&&a.location_id!=="default"?` (${S(o,a.location_id)})`:""}</option>`)}</datalist>
    <${L} locations=${c} onAdded=${e} />
    <form class="filters one" role="search" aria-label="Filter pools" onSubmit=${a=>a.preventDefault()}>
      <${y} name="location" label="Location" items=${c} none="every location" value=${t} onChange=${a=>s(a.target.value)} />
    </form>
    <${b} error=${n||u?.error} />
    ${d&&i`<div class="table-wrap" tabindex="0"><table data-pools>
      <caption class="sr-only">IP pools</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Range</th><th scope="col">Gateway</th><th scope="col">Node</th>
        <th scope="col">DNS</th><th scope="col">Location</th><th scope="col">Allocated</th><th scope="col">Actions</th></tr></thead>
      <tbody>${d.items.map(a=>i`<${F} key=${a.id} pool=${a} names=${o} locations=${c}
        editing=${l===a.id} onEdit=${()=>f(l===a.id?null:a.id)} onChanged=${p} />`)}</tbody>
    </table></div>
    ${d.items.length===0&&i`<p>No pools${t?" in this location":" yet"}.</p>`}
    ${m}`}
  </main>`}export{H as IPPools};
