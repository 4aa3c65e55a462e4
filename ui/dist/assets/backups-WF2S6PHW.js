import{a as F,c as g}from"./chunk-MTL65ZAK.js";import{a as D}from"./chunk-MIMHD4HQ.js";import{a as U,e as x}from"./chunk-PBPSO6V7.js";import{a as E}from"./chunk-HOYY2OMK.js";import{a as u,b as v,c as w,l as h,p as R,q as C,r as y,s as S,t as T}from"./chunk-E4PU34WH.js";import{g as n}from"./chunk-XGWGEZEQ.js";var I="/api/resources/backups";function N({task:i}){let s=D.value[i.id]||i;return n`<span class="task" aria-live="polite">${s.type}: <${C} value=${s.status} />${s.error?n` <span class="field-error">${s.error}</span>`:""}</span>`}function P({b:i,tenants:s,onCancel:l}){let[a,b]=g(),[o,k]=u(null),[c,_]=u([]),d=w(null);v(()=>{d.current?.focus(),h("GET","/api/virt/nodes?limit=500").then(t=>_(t.items),()=>{})},[]);let $=async t=>{t.preventDefault();let p=new FormData(t.target),f={start_after:p.get("start_after")==="on"};for(let m of["name","node","tenant_id"])String(p.get(m)||"").trim()&&(f[m]=String(p.get(m)).trim());await b(async()=>k(await h("POST",`/api/virt/backups/${encodeURIComponent(i.id)}/restore`,f)))};return o?n`<div role="status" data-restored>
      <p>Restoring into <a href=${`/admin/machines/${encodeURIComponent(o.machine.id)}?tenant=${encodeURIComponent(o.machine.tenant_id||"")}`}>${o.machine.name}</a>:
        <${N} task=${o.task} /></p>
      <button type="button" onClick=${l}>Close</button></div>`:n`<form onSubmit=${$} aria-label="Restore into a new machine" onKeyDown=${t=>t.key==="Escape"&&l()}>
    <${y} error=${a} />
    <div class="grid">
      <${S} name="name" label="Name (blank: the backup's machine's)" error=${a} inputRef=${d} maxlength="63" spellcheck="false" />
      <label class="field"><span>Node</span><select name="node" aria-invalid=${a?.fields?.node?"true":void 0}>
        <option value="">the hypervisor's choice</option>
        ${c.filter(t=>(t.location_id||t.location||"default")===(i.location_id||"default")).map(t=>n`<option value=${t.id||t.name}>${t.name}</option>`)}</select>
        ${a?.fields?.node&&n`<span class="field-error">${a.fields.node}</span>`}</label>
      <label class="field"><span>Tenant</span><select name="tenant_id" aria-invalid=${a?.fields?.tenant_id?"true":void 0}>
        ${s.map(t=>n`<option value=${t.id} selected=${t.id===i.tenant_id}>${t.name}</option>`)}</select>
        ${a?.fields?.tenant_id&&n`<span class="field-error">${a.fields.tenant_id}</span>`}</label>
    </div>
    <label class="check"><input type="checkbox" name="start_after" defaultChecked /> Start it once restored</label>
    <p class="muted">The new machine is made within the tenant's quota, with addresses of its own; the backup's machine, if it still exists, stays as it is.</p>
    <button type="submit" class="primary">Restore</button> <button type="button" onClick=${l}>Cancel</button>
  </form>`}function A(){let[i,s]=u({tenant_id:"",machine_id:""}),l=new URLSearchParams({limit:"50"});for(let[e,r]of Object.entries(i))r&&l.set(e,r);let{page:a,error:b,reload:o,pager:k}=F(`${I}?${l}`),c=U(x),_=Object.fromEntries((c?.items||[]).map(e=>[e.id,e.name])),[d,$]=u(null),[t,p]=g(),f=e=>{e.preventDefault();let r=new FormData(e.target);s({tenant_id:String(r.get("tenant_id")||""),machine_id:String(r.get("machine_id")||"").trim()})},m=e=>p(()=>h("DELETE",`${I}/${encodeURIComponent(e.id)}`)).then(r=>r&&o());return n`<main id="main">
    <h1>Backups</h1>
    <form class="filters" role="search" aria-label="Filter the backups" onSubmit=${f}>
      <label class="field"><span>Tenant</span><select name="tenant_id"><option value="">any</option>
        ${(c?.items||[]).map(e=>n`<option value=${e.id}>${e.name}</option>`)}</select></label>
      <label class="field"><span>Machine id</span><input name="machine_id" spellcheck="false" /></label>
      <button type="submit">Filter</button>
    </form>
    <${y} error=${b||t} />
    ${a&&n`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Machine</th><th scope="col">Tenant</th><th scope="col">Size</th>
        <th scope="col">Mode, origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.items.map(e=>n`<tr key=${e.id} data-backup=${e.id}><td>${R(e.created_at)}</td>
        <td><a href=${`/admin/machines/${encodeURIComponent(e.machine_id)}?tenant=${encodeURIComponent(e.tenant_id)}`}>${e.machine_id}</a><br /><span class="muted">${e.node}</span></td>
        <td>${_[e.tenant_id]||e.tenant_id}</td><td>${T(e.size_bytes)}</td><td>${e.mode}, ${e.origin}</td><td>${e.note||""}</td>
        <td class="row-actions"><button type="button" data-restore-new aria-expanded=${d===e.id?"true":"false"}
          onClick=${()=>$(d===e.id?null:e.id)}>Restore into a new machine</button>
          <${E} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?" onYes=${()=>m(e)} /></td></tr>
        ${d===e.id&&n`<tr key=${`${e.id}-restore`} class="edit-row"><td colspan="7">
          <${P} b=${e} tenants=${c?.items||[]} onCancel=${()=>$(null)} /></td></tr>`}`)}</tbody>
    </table></div>
    ${a.items.length===0&&n`<p>No backups${i.tenant_id||i.machine_id?" match":" yet"}.</p>`}
    ${k}`}
  </main>`}export{A as Backups};
