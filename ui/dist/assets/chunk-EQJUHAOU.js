import{a as B,b as j}from"./chunk-NOVTYDXA.js";import{b as K,c as Y,d as re,e as ie}from"./chunk-Z3SVVAYX.js";import{a as O,c as H,d as W,e as ae,f as ne}from"./chunk-2POUUWF6.js";import{a as J}from"./chunk-FERSF4KL.js";import{a as N}from"./chunk-HQUNSCRM.js";import{a as b,b as T,k as P,m as R,n as E,o as G,p as L,q as S,r as M,s as oe,t as w}from"./chunk-GBUNNUYN.js";import{g as e}from"./chunk-XGWGEZEQ.js";var _=o=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${o} /></svg>`,Pe=_("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),xe=_("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),le=_("M7 4l13 8-13 8z"),Z=_("M6 6h12v12H6z"),de=_("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Te=_("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Re=_("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Ee=_("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ne=_("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Oe=_("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),ze=_("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),De=_("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Ie=_("M3 12h4l3-7 4 14 3-7h4"),Ue=_("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"),Ge=_("M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z"),Le=_("M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z");function ce(o,a){let[c,s]=b(null),[i,m]=b(null);return T(()=>{let u=!0;return P("GET",o).then(g=>{u&&(s(g),m(null))},g=>u&&m(g)),()=>{u=!1}},[o,a]),[c,i]}function pe({at:o,act:a,ended:c}){let[s,i]=ce(o("/backups?limit=100"),c),[m,u]=b(null),[g,l]=b(!0),n=async t=>{u(null);try{return await t(),!0}catch(h){return u(h),!1}};return e`<${w} id="backups-part" title="Backups">
    <${S} error=${m||i} />
    <form class="inline-form" onSubmit=${async t=>{t.preventDefault();let h=new FormData(t.target),r={mode:h.get("mode")};h.get("note")&&(r.note=h.get("note")),await n(()=>a("POST","/backups",r))&&t.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${M} name="note" label="Note (optional)" error=${m} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${g} onChange=${t=>l(t.target.checked)} /> Start the machine after a restore</label>
    ${s&&(s.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${s.items.map(t=>e`<tr key=${t.id} data-backup=${t.id}>
        <td>${G(t.created_at)}</td><td>${oe(t.size_bytes)}</td><td>${t.mode}</td><td>${t.origin}</td><td>${t.note||""}</td>
        <td><${N} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>n(()=>a("POST",`/backups/${encodeURIComponent(t.id)}/restore`,{start_after:g}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ue({m:o,at:a,act:c,ended:s}){let[i,m]=ce(a("/snapshots?limit=200"),s),[u,g]=b(null),l=async t=>{g(null);try{return await t(),!0}catch(h){return g(h),!1}},n=async t=>{t.preventDefault();let h=new FormData(t.target),r={name:h.get("name")};h.get("description")&&(r.description=h.get("description")),h.get("include_memory")&&(r.include_memory=!0),await l(()=>c("POST","/snapshots",r))&&t.target.reset()},p=t=>`/snapshots/${encodeURIComponent(t.name)}`;return e`<${w} id="snapshots-part" title="Snapshots">
    <${S} error=${u||m} />
    <form class="inline-form" onSubmit=${n} aria-label="Take a snapshot">
      <${M} name="name" label="Name" error=${u} required />
      <${M} name="description" label="Description (optional)" error=${u} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${o.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(t=>e`<tr key=${t.name} data-snapshot=${t.name}>
        <td>${t.name}</td><td>${G(t.created_at)}</td><td>${t.includes_memory?"yes":"no"}</td><td>${t.description||""}</td>
        <td class="row-actions">
          <${N} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${t.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>c("POST",`${p(t)}/rollback`))} />
          <${N} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${t.name}?`}
            onYes=${()=>l(()=>c("DELETE",p(t)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function me({m:o,base:a,onMachine:c}){let[s,i]=b(null),[m,u]=b(""),g=r=>`${a}/addresses/${encodeURIComponent(r.address)}`,l=async r=>{i(null);try{let v=await r();return v&&v.id&&c(v),!0}catch(v){return i(v),!1}},n=async(r,v)=>{r.preventDefault();let C=new FormData(r.target).get("ptr").trim();await l(()=>P("PUT",`${g(v)}/ptr`,{ptr:C}))&&u("")},p=async r=>{r.preventDefault();let v=new FormData(r.target),C={version:Number(v.get("version"))};v.get("address")&&(C.address=v.get("address").trim()),await l(()=>P("POST",`${a}/addresses`,C))&&r.target.reset()},t=o.addresses||[],h=t[0];return e`<${w} id="addresses-part" title="Addresses">
    <${S} error=${s} />
    ${t.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(r=>e`<tr key=${r.address} data-address=${r.address}>
        <td>${r.address}/${r.prefix}${r===h?" (primary)":""}</td><td>${r.gateway||""}</td>
        <td>${m===r.address?e`<form class="inline-form" onSubmit=${v=>n(v,r)} aria-label=${`Reverse DNS name of ${r.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${r.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>u("")}>Cancel</button></form>`:e`<span data-ptr>${r.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${m!==r.address&&e`<button type="button" data-edit-ptr onClick=${()=>u(r.address)}>Edit reverse DNS</button>`}
          ${r!==h&&e`<${N} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${r.address} back to its pool? The machine stops using it.`}
            onYes=${()=>l(()=>P("DELETE",g(r)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${p} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function te(){let[o,a]=b(null);return[o,async s=>{a(null);try{return await s(),!0}catch(i){return a(i),!1}}]}function $e({m:o,act:a}){let c=O(ne),[s,i]=te(),[m,u]=b(""),g=(c?.items||[]).filter(l=>l.status==="ready");return e`<${w} id="media-part" title="ISO and rescue">
    <${S} error=${s||c?.error} />
    <p>In the CD-ROM drive: <strong data-media>${o.media?o.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${l=>u(l.target.value)} aria-describedby=${s?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${c?g.length?"choose an image":"no image is ready":"loading…"}</option>
          ${g.map(l=>e`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${s?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${s.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||o.rescue} onClick=${()=>i(()=>a("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!o.media||o.rescue} onClick=${()=>i(()=>a("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${o.rescue?"on":"off"}</strong>.</p>
    ${o.rescue?e`<${N} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>a("POST","/rescue",{enabled:!1}))} />`:e`<${N} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>a("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function be({m:o,act:a}){let c=O(H),[s,i]=te(),[m,u]=b(null),g=n=>{n.preventDefault(),u(n.target)},l=async()=>{let n=new FormData(m),p={template_id:n.get("template_id")};n.get("password")&&(p.password=n.get("password"));let t=String(n.get("ssh_keys")||"").split(`
`).map(h=>h.trim()).filter(Boolean);t.length&&(p.ssh_keys=t),await i(()=>a("POST","/reinstall",p))&&m.reset(),u(null)};return e`<${w} id="reinstall-part" title="Reinstall">
    <${S} error=${s||c?.error} />
    <form onSubmit=${g} aria-label="Reinstall">
      <div class="grid">
        <${se} templates=${c} error=${s} value=${o.template_id} />
        <${M} name="password" label="New root password (optional)" error=${s} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${n=>n?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>u(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function se({templates:o,error:a,value:c}){let s=a?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${s?"true":void 0} aria-describedby=${s?"template_id-error":void 0}>
      ${!o&&e`<option value="">loading…</option>`}
      ${(o?.items||[]).map(i=>e`<option value=${i.id} selected=${i.id===c}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${s&&e`<span class="field-error" id="template_id-error">${s}</span>`}
  </label>`}var ee=o=>a=>{a&&!a.dataset.filled&&(a.value=o,a.dataset.filled="1")};function he({m:o,act:a}){let c=O(W),[s,i]=te(),[m,u]=b(""),g=async l=>{l.preventDefault();let n=new FormData(l.target),p={};for(let t of["cpu_cores","memory_mb","disk_gb"]){let h=Number(n.get(t));n.get(t)&&h!==o[t]&&(p[t]=h)}Object.keys(p).length&&await i(()=>a("PATCH","/resources",p))};return e`<${w} id="resize-part" title="Resize">
    <${S} error=${s||c?.error} />
    ${c?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${l=>u(l.target.value)}>
        <option value="">choose a plan</option>
        ${c.items.map(l=>e`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${R(l.memory_mb)}, ${E(l.disk_gb)}${l.id===o.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>i(()=>a("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${o.cpu_cores}/${o.memory_mb}/${o.disk_gb}`} onSubmit=${g} aria-label="Resize">
      <div class="grid">
        <${M} name="cpu_cores" label="CPU cores" error=${s} type="number" min="1" inputRef=${ee(o.cpu_cores)} />
        <${M} name="memory_mb" label="Memory (MB)" error=${s} type="number" min="1" inputRef=${ee(o.memory_mb)} />
        <${M} name="disk_gb" label="Disk (GB, only grows)" error=${s} type="number" min=${o.disk_gb} inputRef=${ee(o.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var ve=J(()=>import("./graphs-RZSIVX7B.js"),"Graphs"),ye=J(()=>import("./terminal-JIQ4ENQA.js"),"Console"),ke=J(()=>import("./vnc-OOEFTFVU.js"),"VNC"),V="/api/client/machines";function Q({task:o}){if(!o)return null;let a=B.value[o.id]||o;return e`<span class="task" aria-live="polite">${a.type}: <${L} value=${a.status} />${a.error?e` <span class="field-error">${a.error}</span>`:""}</span>`}var _e=[["start","Start",le],["stop","Stop",Z],["shutdown","Shut down",Z],["reboot","Reboot",de]],Me=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],Se=(o,a)=>c=>{let s=`${o}${c}`;return a?`${s}${s.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(a)}`:s};function it({id:o,admin:a,tenant:c}){let[s,i]=b(null),[m,u]=b([]),[g,l]=b(null),[n,p]=b(null),[t,h]=b(0),[r,v]=b(!1),[C,z]=b(!1),{names:A}=K(!!a),y=`${V}/${encodeURIComponent(o)}`,D=`/api/virt/vms/${encodeURIComponent(o)}`,I=Se(y,a?c:""),F=()=>P("GET",I("")).then(d=>{i(d),d.last_task&&p(f=>f||d.last_task)},l);T(()=>{i(null),p(null),l(null),v(!1),z(!1),F(),P("GET",I("/tasks?limit=20")).then(d=>u(d.items),()=>{})},[o,c]),T(()=>j((d,f)=>{d==="machine.updated"&&f.id===o&&i(k=>k&&{...k,...f}),d==="task.updated"&&f.target_id===o&&(u(k=>k.some(x=>x.id===f.id)?k.map(x=>x.id===f.id?f:x):[f,...k]),(f.status==="succeeded"||f.status==="failed")&&(h(k=>k+1),F()))}),[o]);let q=async(d,f,k)=>{let x=await P(d,I(f),k);return p(x.task),u(X=>X.some(fe=>fe.id===x.task.id)?X:[x.task,...X]),x.task},U=async d=>{l(null);try{await q("POST",`/actions/${d}`)}catch(f){l(f)}},$={m:s,at:I,act:q,ended:t};return e`<main id="main">
    <p><a href=${a?"/admin/machines":"/machines"}>← Machines</a></p>
    <${S} error=${g} />
    ${s&&e`<h1>${s.name} <${L} value=${s.status} />${s.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Me.filter(([d])=>d!=="vnc"||s.display).map(([d,f])=>e`<li><a href=${`#${d}`}>${f}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${_e.map(([d,f,k])=>e`<button onClick=${()=>U(d)} data-action=${d}><${k} />${f}</button>`)}
      </div>
      ${n&&e`<p>Last action: <${Q} task=${n} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${s.cpu_cores} CPU, ${R(s.memory_mb)} memory, ${E(s.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${s.template_id}</dd>
        <dt>Node</dt><dd>${s.node}</dd>
        ${a&&e`<dt>Location</dt><dd data-location>${Y(A,s.location_id)}</dd>`}
        <dt>Addresses</dt><dd>${(s.interfaces||[]).flatMap(d=>d.ip_addresses||[]).join(", ")||(s.addresses||[]).map(d=>d.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${s.media?s.media.name:"none"}</dd>
        <dt>Created</dt><dd>${G(s.created_at)}</dd>
      </dl>
      <div id="addresses"><${me} m=${s} base=${a?D:y} onMachine=${d=>i(f=>({...f,...d}))} /></div>
      <div id="graphs"><${w} id="graphs-part" title="Graphs"><${ve} url=${`${a?D:y}/usage-graphs`} /><//></div>
      <div id="console"><${w} id="console-part" title="Serial console">
        ${r?e`<${ye} url=${`${a?D:y}/console`} /><button type="button" onClick=${()=>v(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>v(!0)}>Open console</button>`}
      <//></div>
      ${s.display&&e`<div id="vnc"><${w} id="vnc-part" title="Graphical console (VNC)">
        ${C?e`<${ke} url=${`${a?D:y}/console`} /><button type="button" onClick=${()=>z(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>z(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${pe} ...${$} /></div>
      <div id="snapshots"><${ue} ...${$} /></div>
      <div id="media"><${$e} ...${$} /></div>
      <div id="reinstall"><${be} ...${$} /></div>
      <div id="resize"><${he} ...${$} /></div>
      <div id="tasks"><${w} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(d=>B.value[d.id]||d).map(d=>e`<tr key=${d.id}><td>${d.type}</td><td><${L} value=${d.status} /></td><td>${G(d.created_at)}</td><td>${d.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function gt(){let[o,a]=b(null),[c,s]=b(null),[i,m]=b([""]),u=i[i.length-1];T(()=>{let n=!0;return P("GET",`${V}?limit=50${u?`&cursor=${encodeURIComponent(u)}`:""}`).then(p=>n&&a(p),p=>n&&s(p)),()=>{n=!1}},[u]),T(()=>j((n,p)=>{n!=="machine.updated"&&n!=="machine.deleted"||a(t=>{if(!t)return t;let h=t.items.findIndex(r=>r.id===p.id);return n==="machine.deleted"?h<0?t:{...t,items:t.items.filter(r=>r.id!==p.id)}:h>=0?{...t,items:t.items.map(r=>r.id===p.id?{...r,...p}:r)}:i.length===1?{...t,items:[p,...t.items]}:t})}),[i.length]);let g=n=>a(p=>p&&!p.items.some(t=>t.id===n.machine.id)?{...p,items:[{...n.machine,task_id:n.task.id},...p.items]}:p),l={};for(let n of Object.values(B.value)){let p=l[n.target_id];(!p||p.created_at<n.created_at)&&(l[n.target_id]=n)}return e`<main id="main">
    <h1>Machines</h1>
    <${S} error=${c} />
    <${we} onCreated=${g} />
    ${o&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${o.items.map(n=>e`<tr key=${n.id} data-machine=${n.id}>
        <td><a href=${`/machines/${encodeURIComponent(n.id)}`}>${n.name}</a></td>
        <td><${L} value=${n.status} /></td>
        <td>${n.cpu_cores} CPU, ${R(n.memory_mb)}, ${E(n.disk_gb)}</td>
        <td>${l[n.id]?e`<${Q} task=${l[n.id]} />`:n.task_id?e`<${Q} task=${{id:n.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>m(i.slice(0,-1))}>Previous</button>
      <button disabled=${!o.next_cursor} onClick=${()=>m([...i,o.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function we({onCreated:o,admin:a}){let[c,s]=b(null),i=O(H),m=O(W),u=O(a?ae:null),[g,l]=b(!1),[n,p]=b(null),[t,h]=b("default"),{items:r,names:v}=K(!!a),C=m?.items||[],z=a||m&&C.length===0,A=n??(z?"":C[0]?.id||""),y=C.find($=>$.id===A),D=y?.allowed_templates?.length?new Set(y.allowed_templates):null,I=y?y.location_id||"default":t,F=i&&{...i,items:i.items.filter($=>(!D||D.has($.id))&&re(I)($))},q=async $=>{$.preventDefault();let d=new FormData($.target),f={name:d.get("name"),template_id:d.get("template_id")};if(y)f.plan_id=y.id;else for(let k of["cpu_cores","memory_mb","disk_gb"])d.get(k)&&(f[k]=Number(d.get(k)));!y&&t!=="default"&&(f.location_id=t),s(null);try{o(await P("POST",a?`${V}?tenant_id=${encodeURIComponent(d.get("tenant_id"))}`:V,f)),$.target.reset(),l(!1)}catch(k){s(k)}};if(!g)return e`<button class="primary" onClick=${()=>l(!0)}>New machine</button>`;let U=c?.fields?.plan_id;return e`<form class="card" onSubmit=${q} aria-label="New machine">
    <${S} error=${c||m?.error||u?.error} />
    <div class="grid">
      <${M} name="name" label="Name" error=${c} required />
      ${a&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(u?.items||[]).map($=>e`<option value=${$.id}>${$.name}</option>`)}</select></label>`}
      ${C.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${A} onChange=${$=>p($.target.value)} aria-invalid=${U?"true":void 0} aria-describedby=${U?"plan_id-error":void 0}>
          ${z&&e`<option value="">custom sizes</option>`}
          ${C.map($=>e`<option value=${$.id}>${$.name}: ${$.cpu_cores} CPU, ${R($.memory_mb)}, ${E($.disk_gb)}${a&&$.location_id&&$.location_id!=="default"?`, in ${Y(v,$.location_id)}`:""}</option>`)}
        </select>${U&&e`<span class="field-error" id="plan_id-error">${U}</span>`}</label>`}
      ${a&&(y?e`<p class="muted" data-plan-location>Made in ${Y(v,y.location_id)}, the plan's location</p>`:e`<${ie} items=${r} error=${c} value=${t} onChange=${$=>h($.target.value)} />`)}
      <${se} key=${`${A}@${I}`} templates=${F} error=${c} />
      ${y?e`<p class="muted" data-plan-sizes>${y.cpu_cores} CPU, ${R(y.memory_mb)}, ${E(y.disk_gb)} from the plan</p>`:z&&e`
          <${M} name="cpu_cores" label="CPU cores" error=${c} type="number" min="1" />
          <${M} name="memory_mb" label="Memory (MB)" error=${c} type="number" min="1" />
          <${M} name="disk_gb" label="Disk (GB)" error=${c} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
  </form>`}export{Pe as a,xe as b,Te as c,Re as d,Ee as e,Ne as f,Oe as g,ze as h,De as i,Ie as j,Ue as k,Ge as l,Le as m,it as n,gt as o,we as p};
