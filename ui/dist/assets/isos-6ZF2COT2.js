import{a as I,c as _}from"./chunk-MTL65ZAK.js";import{b as z}from"./chunk-MIMHD4HQ.js";import{a as S,b as D,e as C,f as H}from"./chunk-PBPSO6V7.js";import{a as U}from"./chunk-HOYY2OMK.js";import{a as g,b as O,g as P,h as $,j as R,l as w,p as T,q,r as v,s as b,t as f}from"./chunk-E4PU34WH.js";import{g as s}from"./chunk-XGWGEZEQ.js";var y="/api/resources/isos",E=o=>`${y}/${encodeURIComponent(o.id)}`,x=1<<30;async function M(o){let u=await crypto.subtle.digest("SHA-256",await o.arrayBuffer());return`sha256:${[...new Uint8Array(u)].map(i=>i.toString(16).padStart(2,"0")).join("")}`}function W(o,u,i){let r=()=>new Promise((l,n)=>{let a=new XMLHttpRequest;a.open("PUT",o),a.setRequestHeader("Authorization",`Bearer ${P.value?.token}`),a.setRequestHeader("Content-Type","application/octet-stream"),a.setRequestHeader("X-Vmplane-CSRF","1"),a.upload.onprogress=t=>i(t.loaded,t.total),a.onload=()=>{let t={};try{t=JSON.parse(a.responseText)}catch{t={title:a.statusText,detail:a.responseText}}a.status>=200&&a.status<300?l(t):n(new $(t,a.status))},a.onerror=()=>n(new $({title:"The upload broke off",detail:"The connection closed before the server answered: send the file again."},0)),a.send(u)});return r().catch(async l=>{if(l.status!==401)throw l;return await R(),r()})}function B({onAdded:o}){let[u,i]=g(!1),[r,l]=g("url"),[n,a]=_(),[t,d]=g(null),k=S(C),e=async c=>{c.preventDefault();let m=new FormData(c.target),p={name:String(m.get("name")).trim(),checksum:String(m.get("checksum")).trim()};m.get("tenant_id")&&(p.tenant_id=String(m.get("tenant_id")));let h=m.get("file"),F=await a(async()=>{if(r==="url"){p.url=String(m.get("url")).trim(),o((await w("POST",y,p)).iso);return}if(!h||!h.size)throw new $({title:"Choose the image's file",errors:[{field:"file",message:"choose a file"}]},400);if(!p.checksum){if(h.size>x)throw new $({title:"Give the checksum",errors:[{field:"checksum",message:`give it for a file over ${f(x)}`}]},400);d({what:"Computing the checksum…"}),p.checksum=await M(h)}p.upload=!0;let A=await w("POST",y,p);o(A.iso),d({what:"Uploading",n:0,of:h.size}),await W(`${E(A.iso)}/content`,h,(L,N)=>d({what:"Uploading",n:L,of:N}))});d(null),F&&(i(!1),o(null))};return u?s`<form class="card" onSubmit=${e} aria-label="Add an image">
    <h2>Add an image</h2>
    <${v} error=${n} />
    <fieldset><legend>From</legend>
      <label class="choice"><input type="radio" name="how" value="url" checked=${r==="url"} onChange=${()=>l("url")} /> A URL, fetched by the server</label>
      <label class="choice"><input type="radio" name="how" value="upload" checked=${r==="upload"} onChange=${()=>l("upload")} /> A file on this computer, uploaded</label>
    </fieldset>
    <div class="grid">
      <${b} name="name" label="Name" error=${n} required maxlength="100" />
      ${r==="url"?s`<${b} name="url" label="URL (http or https)" error=${n} type="url" required spellcheck="false" />`:s`<${b} name="file" label="File" error=${n} type="file" accept=".iso,application/x-iso9660-image,application/octet-stream" required />`}
      <${b} name="checksum" label=${r==="url"?"Checksum (sha256:<hex> or sha512:<hex>)":`Checksum (blank: computed here, up to ${f(x)})`}
        error=${n} required=${r==="url"} spellcheck="false" autocomplete="off" />
      <label class="field"><span>Who sees it</span><select name="tenant_id" aria-invalid=${n?.fields?.tenant_id?"true":void 0}>
        <option value="">every tenant (public)</option>
        ${(k?.items||[]).map(c=>s`<option value=${c.id}>${c.name} only</option>`)}</select>
        ${n?.fields?.tenant_id&&s`<span class="field-error">${n.fields.tenant_id}</span>`}</label>
    </div>
    ${t&&s`<p role="status" data-upload>${t.what}${t.of?s` <progress max=${t.of} value=${t.n}>${Math.round(100*t.n/t.of)}%</progress>
      ${f(t.n)} of ${f(t.of)}`:""}</p>`}
    <button type="submit" class="primary" disabled=${!!t}>Add</button> <button type="button" disabled=${!!t} onClick=${()=>i(!1)}>Cancel</button>
  </form>`:s`<button class="primary" onClick=${()=>i(!0)}>Add an image</button>`}function Z(){let{page:o,error:u,reload:i,pager:r}=I(`${y}?limit=50`),l=S(C),n=Object.fromEntries((l?.items||[]).map(e=>[e.id,e.name])),[a,t]=_(),d=()=>{D(H),i()};O(()=>z((e,c)=>{e==="task.updated"&&c.type?.startsWith("iso.")&&d()}),[]);let k=e=>t(()=>w("DELETE",E(e))).then(c=>c&&d());return s`<main id="main">
    <h1>ISO images</h1>
    <p class="muted">Images tenants mount in their machines' CD-ROM drive. A public image is every tenant's; another is one tenant's.</p>
    <${B} onAdded=${d} />
    <${v} error=${u||a} />
    ${o&&s`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">ISO images</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Size</th><th scope="col">Who sees it</th>
        <th scope="col">Source</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
      <tbody>${o.items.map(e=>s`<tr key=${e.id} data-iso=${e.name} data-status=${e.status}><td>${e.name}${e.file?s`<br /><span class="muted">${e.file}</span>`:""}</td>
        <td><${q} value=${e.status} />${e.error?s`<br /><span class="muted" data-iso-error>${e.error}</span>`:""}</td>
        <td data-size>${e.size_bytes?f(e.size_bytes):""}</td>
        <td>${e.tenant_id?n[e.tenant_id]||e.tenant_id:"every tenant"}</td>
        <td>${e.url?s`<code>${e.url}</code>`:"uploaded"}</td><td>${T(e.created_at)}</td>
        <td class="row-actions"><${U} name="delete-iso" label="Delete" yes="Yes, delete" question=${`Delete ${e.name}?`} onYes=${()=>k(e)} /></td></tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&s`<p>No images yet.</p>`}
    ${r}`}
  </main>`}export{Z as ISOs};
