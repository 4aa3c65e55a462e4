import{a as G}from"./chunk-AX76OU66.js";import{a as q,b as L}from"./chunk-MIMHD4HQ.js";import{b as te}from"./chunk-YQSPOLJD.js";import{a as I,c as H,d as j,e as oe,f as ae}from"./chunk-PBPSO6V7.js";import{a as P}from"./chunk-HOYY2OMK.js";import{a as b,b as O,l as M,n as z,o as N,p as A,q as B,r as S,s as _,t as se,u as w}from"./chunk-E4PU34WH.js";import{g as e}from"./chunk-XGWGEZEQ.js";var y=s=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${s} /></svg>`,Ce=y("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Pe=y("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),xe=y("M3 4h18v4H3zM5 8v12h14V8M10 12h4"),Te=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Re=y("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),Q=y("M7 4l13 8-13 8z"),W=y("M6 6h12v12H6z"),ne=y("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Ee=y("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),De=y("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Oe=y("M4 18a8 8 0 1 1 16 0M12 18l4-6"),ze=y("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Ne=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),Ie=y("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Ue=y("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Ge=y("M3 12h4l3-7 4 14 3-7h4"),Ye=y("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01");function re(s,o){let[c,a]=b(null),[i,m]=b(null);return O(()=>{let $=!0;return M("GET",s).then(h=>{$&&(a(h),m(null))},h=>$&&m(h)),()=>{$=!1}},[s,o]),[c,i]}function ie({at:s,act:o,ended:c}){let[a,i]=b(0),[m,$]=re(s("/backups?limit=100"),`${c}/${a}`),[h,l]=b(null),[r,d]=b(!0),n=async t=>{l(null);try{return await t(),!0}catch(u){return l(u),!1}};return e`<${w} id="backups-part" title="Backups">
    <${S} error=${h||$} />
    <form class="inline-form" onSubmit=${async t=>{t.preventDefault();let u=new FormData(t.target),k={mode:u.get("mode")};u.get("note")&&(k.note=u.get("note")),await n(()=>o("POST","/backups",k))&&t.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${_} name="note" label="Note (optional)" error=${h} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${r} onChange=${t=>d(t.target.checked)} /> Start the machine after a restore</label>
    ${m&&(m.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${m.items.map(t=>e`<tr key=${t.id} data-backup=${t.id}>
        <td>${A(t.created_at)}</td><td>${se(t.size_bytes)}</td><td>${t.mode}</td><td>${t.origin}</td><td>${t.note||""}</td>
        <td><${P} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>n(()=>o("POST",`/backups/${encodeURIComponent(t.id)}/restore`,{start_after:r}))} />
          <${P} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?"
          onYes=${()=>n(()=>M("DELETE",`/api/resources/backups/${encodeURIComponent(t.id)}`)).then(u=>u&&i(k=>k+1))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function le({m:s,at:o,act:c,ended:a}){let[i,m]=re(o("/snapshots?limit=200"),a),[$,h]=b(null),l=async n=>{h(null);try{return await n(),!0}catch(g){return h(g),!1}},r=async n=>{n.preventDefault();let g=new FormData(n.target),t={name:g.get("name")};g.get("description")&&(t.description=g.get("description")),g.get("include_memory")&&(t.include_memory=!0),await l(()=>c("POST","/snapshots",t))&&n.target.reset()},d=n=>`/snapshots/${encodeURIComponent(n.name)}`;return e`<${w} id="snapshots-part" title="Snapshots">
    <${S} error=${$||m} />
    <form class="inline-form" onSubmit=${r} aria-label="Take a snapshot">
      <${_} name="name" label="Name" error=${$} required />
      <${_} name="description" label="Description (optional)" error=${$} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${s.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(n=>e`<tr key=${n.name} data-snapshot=${n.name}>
        <td>${n.name}</td><td>${A(n.created_at)}</td><td>${n.includes_memory?"yes":"no"}</td><td>${n.description||""}</td>
        <td class="row-actions">
          <${P} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${n.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>c("POST",`${d(n)}/rollback`))} />
          <${P} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${n.name}?`}
            onYes=${()=>l(()=>c("DELETE",d(n)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function de({m:s,base:o,onMachine:c}){let[a,i]=b(null),[m,$]=b(""),h=t=>`${o}/addresses/${encodeURIComponent(t.address)}`,l=async t=>{i(null);try{let u=await t();return u&&u.id&&c(u),!0}catch(u){return i(u),!1}},r=async(t,u)=>{t.preventDefault();let k=new FormData(t.target).get("ptr").trim();await l(()=>M("PUT",`${h(u)}/ptr`,{ptr:k}))&&$("")},d=async t=>{t.preventDefault();let u=new FormData(t.target),k={version:Number(u.get("version"))};u.get("address")&&(k.address=u.get("address").trim()),await l(()=>M("POST",`${o}/addresses`,k))&&t.target.reset()},n=s.addresses||[],g=n[0];return e`<${w} id="addresses-part" title="Addresses">
    <${S} error=${a} />
    ${n.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${n.map(t=>e`<tr key=${t.address} data-address=${t.address}>
        <td>${t.address}/${t.prefix}${t===g?" (primary)":""}</td><td>${t.gateway||""}</td>
        <td>${m===t.address?e`<form class="inline-form" onSubmit=${u=>r(u,t)} aria-label=${`Reverse DNS name of ${t.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${t.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>$("")}>Cancel</button></form>`:e`<span data-ptr>${t.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${m!==t.address&&e`<button type="button" data-edit-ptr onClick=${()=>$(t.address)}>Edit reverse DNS</button>`}
          ${t!==g&&e`<${P} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${t.address} back to its pool? The machine stops using it.`}
            onYes=${()=>l(()=>M("DELETE",h(t)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${d} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function Z(){let[s,o]=b(null);return[s,async a=>{o(null);try{return await a(),!0}catch(i){return o(i),!1}}]}function ce({m:s,act:o}){let c=I(ae),[a,i]=Z(),[m,$]=b(""),h=(c?.items||[]).filter(l=>l.status==="ready");return e`<${w} id="media-part" title="ISO and rescue">
    <${S} error=${a||c?.error} />
    <p>In the CD-ROM drive: <strong data-media>${s.media?s.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${l=>$(l.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${c?h.length?"choose an image":"no image is ready":"loading…"}</option>
          ${h.map(l=>e`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||s.rescue} onClick=${()=>i(()=>o("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!s.media||s.rescue} onClick=${()=>i(()=>o("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${s.rescue?"on":"off"}</strong>.</p>
    ${s.rescue?e`<${P} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>o("POST","/rescue",{enabled:!1}))} />`:e`<${P} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>o("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function pe({m:s,act:o}){let c=I(H),[a,i]=Z(),[m,$]=b(null),h=r=>{r.preventDefault(),$(r.target)},l=async()=>{let r=new FormData(m),d={template_id:r.get("template_id")};r.get("password")&&(d.password=r.get("password"));let n=String(r.get("ssh_keys")||"").split(`
`).map(g=>g.trim()).filter(Boolean);n.length&&(d.ssh_keys=n),await i(()=>o("POST","/reinstall",d))&&m.reset(),$(null)};return e`<${w} id="reinstall-part" title="Reinstall">
    <${S} error=${a||c?.error} />
    <form onSubmit=${h} aria-label="Reinstall">
      <div class="grid">
        <${ee} templates=${c} error=${a} value=${s.template_id} />
        <${_} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${r=>r?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>$(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function ee({templates:s,error:o,value:c}){let a=o?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!s&&e`<option value="">loading…</option>`}
      ${(s?.items||[]).map(i=>e`<option value=${i.id} selected=${i.id===c}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&e`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var X=s=>o=>{o&&!o.dataset.filled&&(o.value=s,o.dataset.filled="1")};function ue({m:s,act:o}){let c=I(j),[a,i]=Z(),[m,$]=b(""),h=async l=>{l.preventDefault();let r=new FormData(l.target),d={};for(let n of["cpu_cores","memory_mb","disk_gb"]){let g=Number(r.get(n));r.get(n)&&g!==s[n]&&(d[n]=g)}Object.keys(d).length&&await i(()=>o("PATCH","/resources",d))};return e`<${w} id="resize-part" title="Resize">
    <${S} error=${a||c?.error} />
    ${c?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${l=>$(l.target.value)}>
        <option value="">choose a plan</option>
        ${c.items.map(l=>e`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${z(l.memory_mb)}, ${N(l.disk_gb)}${l.id===s.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>i(()=>o("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${s.cpu_cores}/${s.memory_mb}/${s.disk_gb}`} onSubmit=${h} aria-label="Resize">
      <div class="grid">
        <${_} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${X(s.cpu_cores)} />
        <${_} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${X(s.memory_mb)} />
        <${_} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${s.disk_gb} inputRef=${X(s.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var be=G(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),he=G(()=>import("./terminal-BSGQFQT7.js"),"Console"),fe=G(()=>import("./vnc-7YJN2TCX.js"),"VNC"),ge=G(()=>import("./machine-manage-QJLJM56E.js"),"Manage"),ve=G(()=>import("./machine-manage-QJLJM56E.js"),"Operate"),ye=G(()=>import("./usage-GSX4N36M.js"),"Usage"),F="/api/client/machines";function J({task:s}){if(!s)return null;let o=q.value[s.id]||s;return e`<span class="task" aria-live="polite">${o.type}: <${B} value=${o.status} />${o.error?e` <span class="field-error">${o.error}</span>`:""}</span>`}var ke=[["start","Start",Q],["stop","Stop",W],["shutdown","Shut down",W],["reboot","Reboot",ne],["suspend","Suspend",W],["resume","Resume",Q]],_e=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["usage","Usage"],["manage","Name and deletion"],["operate","Operator"],["tasks","Tasks"]],Me=(s,o)=>c=>{let a=`${s}${c}`;return o?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(o)}`:a};function lt({id:s,admin:o,tenant:c}){let[a,i]=b(null),[m,$]=b([]),[h,l]=b(null),[r,d]=b(null),[n,g]=b(0),[t,u]=b(!1),[k,V]=b(!1),R=`${F}/${encodeURIComponent(s)}`,x=`/api/virt/vms/${encodeURIComponent(s)}`,v=Me(R,o?c:""),E=()=>M("GET",v("")).then(p=>{i(p),p.last_task&&d(f=>f||p.last_task)},l);O(()=>{i(null),d(null),l(null),u(!1),V(!1),E(),M("GET",v("/tasks?limit=20")).then(p=>$(p.items),()=>{})},[s,c]),O(()=>L((p,f)=>{p==="machine.updated"&&f.id===s&&i(C=>C&&{...C,...f}),p==="task.updated"&&f.target_id===s&&($(C=>C.some(T=>T.id===f.id)?C.map(T=>T.id===f.id?f:T):[f,...C]),(f.status==="succeeded"||f.status==="failed")&&(g(C=>C+1),E()))}),[s]);let Y=async(p,f,C)=>{let T=await M(p,f.startsWith("/api/")?f:v(f),C);return d(T.task),$(K=>K.some(me=>me.id===T.task.id)?K:[T.task,...K]),T.task},D=async p=>{l(null);try{await Y("POST",`/actions/${p}`)}catch(f){l(f)}},U={m:a,at:v,act:Y,ended:n};return e`<main id="main">
    <p><a href=${o?"/admin/machines":"/machines"}>← Machines</a></p>
    <${S} error=${h} />
    ${a&&e`<h1>${a.name} <${B} value=${a.status} />${a.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${_e.filter(([p])=>(p!=="vnc"||a.display)&&(p!=="operate"||o)).map(([p,f])=>e`<li><a href=${`#${p}`}>${f}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${ke.map(([p,f,C])=>e`<button onClick=${()=>D(p)} data-action=${p}><${C} />${f}</button>`)}
        <${P} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${()=>D("reset")} />
      </div>
      ${r&&e`<p>Last action: <${J} task=${r} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${z(a.memory_mb)} memory, ${N(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(p=>p.ip_addresses||[]).join(", ")||(a.addresses||[]).map(p=>p.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${A(a.created_at)}</dd>
      </dl>
      <div id="addresses"><${de} m=${a} base=${o?x:R} onMachine=${p=>i(f=>({...f,...p}))} /></div>
      <div id="graphs"><${w} id="graphs-part" title="Graphs"><${be} url=${`${o?x:R}/usage-graphs`} /><//></div>
      <div id="console"><${w} id="console-part" title="Serial console">
        ${t?e`<${he} url=${`${o?x:R}/console`} /><button type="button" onClick=${()=>u(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>u(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&e`<div id="vnc"><${w} id="vnc-part" title="Graphical console (VNC)">
        ${k?e`<${fe} url=${`${o?x:R}/console`} /><button type="button" onClick=${()=>V(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>V(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${ie} ...${U} /></div>
      <div id="snapshots"><${le} ...${U} /></div>
      <div id="media"><${ce} ...${U} /></div>
      <div id="reinstall"><${pe} ...${U} /></div>
      <div id="resize"><${ue} ...${U} /></div>
      <div id="usage"><${ye} path=${o?`${x}/usage`:`${R}/usage`} /></div>
      <div id="manage"><${ge} ...${U} onGone=${()=>te(o?"/admin/machines":"/machines")} /></div>
      ${o&&e`<div id="operate"><${ve} ...${U} onMachine=${p=>i(f=>({...f,...p}))} /></div>`}
      <div id="tasks"><${w} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(p=>q.value[p.id]||p).map(p=>e`<tr key=${p.id}><td>${p.type}</td><td><${B} value=${p.status} /></td><td>${A(p.created_at)}</td><td>${p.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function gt(){let[s,o]=b(null),[c,a]=b(null),[i,m]=b([""]),$=i[i.length-1];O(()=>{let r=!0;return M("GET",`${F}?limit=50${$?`&cursor=${encodeURIComponent($)}`:""}`).then(d=>r&&o(d),d=>r&&a(d)),()=>{r=!1}},[$]),O(()=>L((r,d)=>{r!=="machine.updated"&&r!=="machine.deleted"||o(n=>{if(!n)return n;let g=n.items.findIndex(t=>t.id===d.id);return r==="machine.deleted"?g<0?n:{...n,items:n.items.filter(t=>t.id!==d.id)}:g>=0?{...n,items:n.items.map(t=>t.id===d.id?{...t,...d}:t)}:i.length===1?{...n,items:[d,...n.items]}:n})}),[i.length]);let h=r=>o(d=>d&&!d.items.some(n=>n.id===r.machine.id)?{...d,items:[{...r.machine,task_id:r.task.id},...d.items]}:d),l={};for(let r of Object.values(q.value)){let d=l[r.target_id];(!d||d.created_at<r.created_at)&&(l[r.target_id]=r)}return e`<main id="main">
    <h1>Machines</h1>
    <${S} error=${c} />
    <${Se} onCreated=${h} />
    ${s&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${s.items.map(r=>e`<tr key=${r.id} data-machine=${r.id}>
        <td><a href=${`/machines/${encodeURIComponent(r.id)}`}>${r.name}</a></td>
        <td><${B} value=${r.status} /></td>
        <td>${r.cpu_cores} CPU, ${z(r.memory_mb)}, ${N(r.disk_gb)}</td>
        <td>${l[r.id]?e`<${J} task=${l[r.id]} />`:r.task_id?e`<${J} task=${{id:r.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${s.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>m(i.slice(0,-1))}>Previous</button>
      <button disabled=${!s.next_cursor} onClick=${()=>m([...i,s.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Se({onCreated:s,admin:o}){let[c,a]=b(null),i=I(H),m=I(j),$=I(o?oe:null),[h,l]=b(!1),[r,d]=b(null),n=m?.items||[],g=o||m&&n.length===0,t=r??(g?"":n[0]?.id||""),u=n.find(v=>v.id===t),k=u?.allowed_templates?.length?new Set(u.allowed_templates):null,V=i&&(k?{...i,items:i.items.filter(v=>k.has(v.id))}:i),R=async v=>{v.preventDefault();let E=new FormData(v.target),Y={name:E.get("name"),template_id:E.get("template_id")};if(u)Y.plan_id=u.id;else for(let D of["cpu_cores","memory_mb","disk_gb"])E.get(D)&&(Y[D]=Number(E.get(D)));a(null);try{s(await M("POST",o?`${F}?tenant_id=${encodeURIComponent(E.get("tenant_id"))}`:F,Y)),v.target.reset(),l(!1)}catch(D){a(D)}};if(!h)return e`<button class="primary" onClick=${()=>l(!0)}>New machine</button>`;let x=c?.fields?.plan_id;return e`<form class="card" onSubmit=${R} aria-label="New machine">
    <${S} error=${c||m?.error||$?.error} />
    <div class="grid">
      <${_} name="name" label="Name" error=${c} required />
      ${o&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${($?.items||[]).map(v=>e`<option value=${v.id}>${v.name}</option>`)}</select></label>`}
      ${n.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${t} onChange=${v=>d(v.target.value)} aria-invalid=${x?"true":void 0} aria-describedby=${x?"plan_id-error":void 0}>
          ${g&&e`<option value="">custom sizes</option>`}
          ${n.map(v=>e`<option value=${v.id}>${v.name}: ${v.cpu_cores} CPU, ${z(v.memory_mb)}, ${N(v.disk_gb)}</option>`)}
        </select>${x&&e`<span class="field-error" id="plan_id-error">${x}</span>`}</label>`}
      <${ee} key=${t} templates=${V} error=${c} />
      ${u?e`<p class="muted" data-plan-sizes>${u.cpu_cores} CPU, ${z(u.memory_mb)}, ${N(u.disk_gb)} from the plan</p>`:g&&e`
          <${_} name="cpu_cores" label="CPU cores" error=${c} type="number" min="1" />
          <${_} name="memory_mb" label="Memory (MB)" error=${c} type="number" min="1" />
          <${_} name="disk_gb" label="Disk (GB)" error=${c} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
  </form>`}export{Ce as a,Pe as b,xe as c,Te as d,Re as e,Ee as f,De as g,Oe as h,ze as i,Ne as j,Ie as k,Ue as l,Ge as m,Ye as n,lt as o,gt as p,Se as q};
