import{a as S,c as b,d as C}from"./chunk-MTL65ZAK.js";import{a as w}from"./chunk-QCUTTXXJ.js";import{b as y}from"./chunk-PBPSO6V7.js";import{a as _}from"./chunk-HOYY2OMK.js";import{a as p,b as v,l as h,q as k,r as f,s as u}from"./chunk-E4PU34WH.js";import{g as r}from"./chunk-XGWGEZEQ.js";var x="/api/resources/locations",E=e=>`${x}/${encodeURIComponent(e.id)}`;function N(e){let[o,t]=p(null);return v(()=>{let n=!0;return fetch("/api/health",{headers:{Accept:"application/json"}}).then(a=>a.json()).then(a=>n&&t(a.checks||{}),()=>n&&t({})),()=>{n=!1}},[e]),o}var V=(e,o)=>(o.default?e.hypervisor:e.locations?.[o.id])||"not checked yet";function P({error:e,p:o}){let[t,n]=p(o?.token_secret_file?"file":"secret"),a=e?.fields?.proxmox,s=t==="secret"?r`<${u} key="secret" name="proxmox.token_secret" label="Token secret" error=${e} required type="password" autocomplete="off" />`:r`<${u} key="file" name="proxmox.token_secret_file" label="Token secret file" error=${e} required placeholder="/etc/vmplane/pve.secret" defaultValue=${o?.token_secret_file} />`;return r`<fieldset aria-describedby=${a?"proxmox-error":void 0}>
    <legend>Proxmox VE cluster</legend>
    ${a&&r`<span class="field-error" id="proxmox-error">${a}</span>`}
    <div class="grid">
      <${u} name="proxmox.url" label="API URL" error=${e} required type="url" placeholder="https://pve.example.net:8006" defaultValue=${o?.url} />
      <${u} name="proxmox.token_id" label="Token id" error=${e} required placeholder="vmplane@pve!api" defaultValue=${o?.token_id} />
      <label class="field"><span>Token secret from</span><select name="secret_from" value=${t} onChange=${d=>n(d.target.value)}>
        <option value="secret">the secret, stored sealed</option><option value="file">a file on the server</option></select></label>
      ${s}
      <${u} name="proxmox.tls_fingerprint" label="TLS fingerprint (blank: the system's CAs)" error=${e} defaultValue=${o?.tls_fingerprint} />
    </div>
    ${t==="secret"&&e?.fields?.["proxmox.token_secret_file"]&&r`<span class="field-error">${e.fields["proxmox.token_secret_file"]}</span>`}
  </fieldset>`}function D(e){let o=n=>String(e.get(`proxmox.${n}`)??"").trim(),t={url:o("url"),token_id:o("token_id")};return e.get("secret_from")==="file"?t.token_secret_file=o("token_secret_file"):t.token_secret=String(e.get("proxmox.token_secret")??""),o("tls_fingerprint")&&(t.tls_fingerprint=o("tls_fingerprint")),t}function q({onAdded:e}){let[o,t]=p(!1),[n,a]=p("proxmox"),[s,d]=b(),m=async l=>{l.preventDefault();let c=new FormData(l.target),$={name:String(c.get("name")).trim(),driver:n};n==="proxmox"&&($.proxmox=D(c)),await d(()=>h("POST",x,$))&&(t(!1),e())};if(!o)return r`<button class="primary" onClick=${()=>t(!0)}>New location</button>`;let i=s?.fields?.driver;return r`<form class="card" onSubmit=${m} aria-label="New location">
    <h2>New location</h2>
    <${f} error=${s} />
    <div class="grid">
      <${u} name="name" label="Name" error=${s} required maxlength="100" />
      <label class="field"><span>Driver</span><select name="driver" value=${n} onChange=${l=>a(l.target.value)}
        aria-invalid=${i?"true":void 0} aria-describedby=${i?"driver-error":void 0}>
        <option value="proxmox">Proxmox VE</option><option value="sim">simulated</option></select>
        ${i&&r`<span class="field-error" id="driver-error">${i}</span>`}</label>
    </div>
    ${n==="proxmox"&&r`<${P} error=${s} />`}
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>t(!1)}>Cancel</button>
  </form>`}function L({l:e,onSaved:o,onCancel:t}){let[n,a]=b(),[s,d]=p(!1),m=C();return r`<form onSubmit=${async l=>{l.preventDefault();let c=new FormData(l.target),$={},g=String(c.get("name")).trim();if(g!==e.name&&($.name=g),s&&($.proxmox=D(c)),Object.keys($).length===0){t();return}await a(()=>h("PATCH",E(e),$))&&o()}} aria-label=${`Edit location ${e.name}`} onKeyDown=${l=>l.key==="Escape"&&t()}>
    <${f} error=${n} />
    <div class="grid"><${u} name="name" label="Name" error=${n} required maxlength="100" defaultValue=${e.name} inputRef=${m} /></div>
    ${e.driver==="proxmox"&&r`<label class="check"><input type="checkbox" checked=${s} onChange=${l=>d(l.target.checked)} />
      New Proxmox settings (all of them, the token's secret again)</label>
      ${s&&r`<${P} error=${n} p=${e.proxmox} />`}`}
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${t}>Cancel</button>
  </form>`}function T({l:e,checks:o,editing:t,onEdit:n,onChanged:a}){let[s,d]=b(),m=async()=>{await d(()=>h("DELETE",E(e)))&&a()},i=e.proxmox,l=t||s;return r`<tr data-location=${e.name}><td>${e.name}${e.default?r` <span class="muted">(default)</span>`:""}</td>
      <td data-driver>${e.driver==="sim"?"simulated":"Proxmox VE"}</td>
      <td data-settings>${i?r`${i.url}<br /><span class="muted">token ${i.token_id}, secret ${i.token_secret_file?`from ${i.token_secret_file}`:i.token_secret_stored?"stored":"none"}${i.tls_fingerprint?", pinned certificate":""}</span>`:e.default?r`<span class="muted">the server's settings</span>`:""}</td>
      <td data-health>${o?r`<${k} value=${V(o,e)} />`:""}</td>
      <td class="row-actions">${e.default?r`<span class="muted">configured by the server</span>`:r`
        <button type="button" data-edit=${e.name} aria-expanded=${t?"true":"false"} onClick=${n}>Edit</button>
        <${_} name="delete-location" label="Delete" yes="Yes, delete" question=${`Delete location ${e.name}?`} onYes=${m} />`}
      </td></tr>
    ${l&&r`<tr class="edit-row" data-location-more=${e.name}><td colspan="5">
      <${f} error=${!t&&s} />
      ${t&&r`<${L} l=${e} onSaved=${a} onCancel=${n} />`}
    </td></tr>`}`}function U(){let{page:e,error:o,reload:t,pager:n}=S(`${x}?limit=50`),[a,s]=p(0),d=N(a),[m,i]=p(null),l=()=>{i(null),y(w),t(),s(c=>c+1)};return r`<main id="main">
    <h1>Locations</h1>
    <${q} onAdded=${l} />
    <${f} error=${o} />
    ${e&&r`<div class="table-wrap" tabindex="0"><table data-locations>
      <caption class="sr-only">Locations</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Driver</th><th scope="col">Settings</th><th scope="col">Health</th><th scope="col">Actions</th></tr></thead>
      <tbody>${e.items.map(c=>r`<${T} key=${c.id} l=${c} checks=${d}
        editing=${m===c.id} onEdit=${()=>i(m===c.id?null:c.id)} onChanged=${l} />`)}</tbody>
    </table></div>
    <p class="muted">Health is the server's last probe of each cluster (<code>/api/health</code>); a location added since shows once probed.
      <button type="button" class="quiet" onClick=${()=>s(c=>c+1)}>Read again</button></p>
    ${n}`}
  </main>`}export{U as Locations};
