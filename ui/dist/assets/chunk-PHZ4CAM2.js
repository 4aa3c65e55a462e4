import{a as B,b as V}from"./chunk-NOVTYDXA.js";import{b as ae,c as K,d as ne,e as re}from"./chunk-Z3SVVAYX.js";import{a as D,c as F,d as q,e as se,f as oe}from"./chunk-2POUUWF6.js";import{a as j}from"./chunk-FERSF4KL.js";import{a as z}from"./chunk-HQUNSCRM.js";import{a as $,b as R,k as P,m as E,n as O,o as U,p as G,q as S,r as M,s as te,t as w}from"./chunk-GBUNNUYN.js";import{g as e}from"./chunk-XGWGEZEQ.js";var k=o=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${o} /></svg>`,Ce=k("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Pe=k("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),ie=k("M7 4l13 8-13 8z"),Q=k("M6 6h12v12H6z"),le=k("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),xe=k("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Te=k("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Re=k("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ee=k("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Oe=k("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),ze=k("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),De=k("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Ne=k("M3 12h4l3-7 4 14 3-7h4"),Ie=k("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"),Ue=k("M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z"),Ge=k("M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z");function de(o,n){let[c,a]=$(null),[l,m]=$(null);return R(()=>{let u=!0;return P("GET",o).then(f=>{u&&(a(f),m(null))},f=>u&&m(f)),()=>{u=!1}},[o,n]),[c,l]}function ce({at:o,act:n,ended:c}){let[a,l]=de(o("/backups?limit=100"),c),[m,u]=$(null),[f,d]=$(!0),r=async t=>{u(null);try{return await t(),!0}catch(b){return u(b),!1}};return e`<${w} id="backups-part" title="Backups">
    <${S} error=${m||l} />
    <form class="inline-form" onSubmit=${async t=>{t.preventDefault();let b=new FormData(t.target),i={mode:b.get("mode")};b.get("note")&&(i.note=b.get("note")),await r(()=>n("POST","/backups",i))&&t.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${M} name="note" label="Note (optional)" error=${m} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${f} onChange=${t=>d(t.target.checked)} /> Start the machine after a restore</label>
    ${a&&(a.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.items.map(t=>e`<tr key=${t.id} data-backup=${t.id}>
        <td>${U(t.created_at)}</td><td>${te(t.size_bytes)}</td><td>${t.mode}</td><td>${t.origin}</td><td>${t.note||""}</td>
        <td><${z} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>r(()=>n("POST",`/backups/${encodeURIComponent(t.id)}/restore`,{start_after:f}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function pe({m:o,at:n,act:c,ended:a}){let[l,m]=de(n("/snapshots?limit=200"),a),[u,f]=$(null),d=async t=>{f(null);try{return await t(),!0}catch(b){return f(b),!1}},r=async t=>{t.preventDefault();let b=new FormData(t.target),i={name:b.get("name")};b.get("description")&&(i.description=b.get("description")),b.get("include_memory")&&(i.include_memory=!0),await d(()=>c("POST","/snapshots",i))&&t.target.reset()},p=t=>`/snapshots/${encodeURIComponent(t.name)}`;return e`<${w} id="snapshots-part" title="Snapshots">
    <${S} error=${u||m} />
    <form class="inline-form" onSubmit=${r} aria-label="Take a snapshot">
      <${M} name="name" label="Name" error=${u} required />
      <${M} name="description" label="Description (optional)" error=${u} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${o.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${l&&(l.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${l.items.map(t=>e`<tr key=${t.name} data-snapshot=${t.name}>
        <td>${t.name}</td><td>${U(t.created_at)}</td><td>${t.includes_memory?"yes":"no"}</td><td>${t.description||""}</td>
        <td class="row-actions">
          <${z} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${t.name}? Changes since it are lost.`}
            onYes=${()=>d(()=>c("POST",`${p(t)}/rollback`))} />
          <${z} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${t.name}?`}
            onYes=${()=>d(()=>c("DELETE",p(t)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ue({m:o,base:n,onMachine:c}){let[a,l]=$(null),[m,u]=$(""),f=i=>`${n}/addresses/${encodeURIComponent(i.address)}`,d=async i=>{l(null);try{let g=await i();return g&&g.id&&c(g),!0}catch(g){return l(g),!1}},r=async(i,g)=>{i.preventDefault();let C=new FormData(i.target).get("ptr").trim();await d(()=>P("PUT",`${f(g)}/ptr`,{ptr:C}))&&u("")},p=async i=>{i.preventDefault();let g=new FormData(i.target),C={version:Number(g.get("version"))};g.get("address")&&(C.address=g.get("address").trim()),await d(()=>P("POST",`${n}/addresses`,C))&&i.target.reset()},t=o.addresses||[],b=t[0];return e`<${w} id="addresses-part" title="Addresses">
    <${S} error=${a} />
    ${t.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.map(i=>e`<tr key=${i.address} data-address=${i.address}>
        <td>${i.address}/${i.prefix}${i===b?" (primary)":""}</td><td>${i.gateway||""}</td>
        <td>${m===i.address?e`<form class="inline-form" onSubmit=${g=>r(g,i)} aria-label=${`Reverse DNS name of ${i.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${i.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>u("")}>Cancel</button></form>`:e`<span data-ptr>${i.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${m!==i.address&&e`<button type="button" data-edit-ptr onClick=${()=>u(i.address)}>Edit reverse DNS</button>`}
          ${i!==b&&e`<${z} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${i.address} back to its pool? The machine stops using it.`}
            onYes=${()=>d(()=>P("DELETE",f(i)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${p} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function Z(){let[o,n]=$(null);return[o,async a=>{n(null);try{return await a(),!0}catch(l){return n(l),!1}}]}function me({m:o,act:n}){let c=D(oe),[a,l]=Z(),[m,u]=$(""),f=(c?.items||[]).filter(d=>d.status==="ready");return e`<${w} id="media-part" title="ISO and rescue">
    <${S} error=${a||c?.error} />
    <p>In the CD-ROM drive: <strong data-media>${o.media?o.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${d=>u(d.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${c?f.length?"choose an image":"no image is ready":"loading…"}</option>
          ${f.map(d=>e`<option value=${d.id}>${d.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||o.rescue} onClick=${()=>l(()=>n("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!o.media||o.rescue} onClick=${()=>l(()=>n("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${o.rescue?"on":"off"}</strong>.</p>
    ${o.rescue?e`<${z} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>l(()=>n("POST","/rescue",{enabled:!1}))} />`:e`<${z} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>l(()=>n("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function $e({m:o,act:n}){let c=D(F),[a,l]=Z(),[m,u]=$(null),f=r=>{r.preventDefault(),u(r.target)},d=async()=>{let r=new FormData(m),p={template_id:r.get("template_id")};r.get("password")&&(p.password=r.get("password"));let t=String(r.get("ssh_keys")||"").split(`
`).map(b=>b.trim()).filter(Boolean);t.length&&(p.ssh_keys=t),await l(()=>n("POST","/reinstall",p))&&m.reset(),u(null)};return e`<${w} id="reinstall-part" title="Reinstall">
    <${S} error=${a||c?.error} />
    <form onSubmit=${f} aria-label="Reinstall">
      <div class="grid">
        <${ee} templates=${c} error=${a} value=${o.template_id} />
        <${M} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${r=>r?.focus()} onClick=${d}>Yes, reinstall</button>
            <button type="button" onClick=${()=>u(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function ee({templates:o,error:n,value:c}){let a=n?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!o&&e`<option value="">loading…</option>`}
      ${(o?.items||[]).map(l=>e`<option value=${l.id} selected=${l.id===c}>${l.name}${l.disk_gb?` (at least ${l.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&e`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var X=o=>n=>{n&&!n.dataset.filled&&(n.value=o,n.dataset.filled="1")};function be({m:o,act:n}){let c=D(q),[a,l]=Z(),[m,u]=$(""),f=async d=>{d.preventDefault();let r=new FormData(d.target),p={};for(let t of["cpu_cores","memory_mb","disk_gb"]){let b=Number(r.get(t));r.get(t)&&b!==o[t]&&(p[t]=b)}Object.keys(p).length&&await l(()=>n("PATCH","/resources",p))};return e`<${w} id="resize-part" title="Resize">
    <${S} error=${a||c?.error} />
    ${c?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${d=>u(d.target.value)}>
        <option value="">choose a plan</option>
        ${c.items.map(d=>e`<option value=${d.id}>${d.name}: ${d.cpu_cores} CPU, ${E(d.memory_mb)}, ${O(d.disk_gb)}${d.id===o.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>l(()=>n("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${o.cpu_cores}/${o.memory_mb}/${o.disk_gb}`} onSubmit=${f} aria-label="Resize">
      <div class="grid">
        <${M} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${X(o.cpu_cores)} />
        <${M} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${X(o.memory_mb)} />
        <${M} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${o.disk_gb} inputRef=${X(o.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var ge=j(()=>import("./graphs-RZSIVX7B.js"),"Graphs"),ve=j(()=>import("./terminal-JIQ4ENQA.js"),"Console"),ye=j(()=>import("./vnc-OOEFTFVU.js"),"VNC"),L="/api/client/machines";function H({task:o}){if(!o)return null;let n=B.value[o.id]||o;return e`<span class="task" aria-live="polite">${n.type}: <${G} value=${n.status} />${n.error?e` <span class="field-error">${n.error}</span>`:""}</span>`}var ke=[["start","Start",ie],["stop","Stop",Q],["shutdown","Shut down",Q],["reboot","Reboot",le]],_e=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],Me=(o,n)=>c=>{let a=`${o}${c}`;return n?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(n)}`:a};function nt({id:o,admin:n,tenant:c}){let[a,l]=$(null),[m,u]=$([]),[f,d]=$(null),[r,p]=$(null),[t,b]=$(0),[i,g]=$(!1),[C,N]=$(!1),T=`${L}/${encodeURIComponent(o)}`,v=`/api/virt/vms/${encodeURIComponent(o)}`,I=Me(T,n?c:""),A=()=>P("GET",I("")).then(s=>{l(s),s.last_task&&p(h=>h||s.last_task)},d);R(()=>{l(null),p(null),d(null),g(!1),N(!1),A(),P("GET",I("/tasks?limit=20")).then(s=>u(s.items),()=>{})},[o,c]),R(()=>V((s,h)=>{s==="machine.updated"&&h.id===o&&l(y=>y&&{...y,...h}),s==="task.updated"&&h.target_id===o&&(u(y=>y.some(_=>_.id===h.id)?y.map(_=>_.id===h.id?h:_):[h,...y]),(h.status==="succeeded"||h.status==="failed")&&(b(y=>y+1),A()))}),[o]);let Y=async(s,h,y)=>{let _=await P(s,I(h),y);return p(_.task),u(J=>J.some(he=>he.id===_.task.id)?J:[_.task,...J]),_.task},W=async s=>{d(null);try{await Y("POST",`/actions/${s}`)}catch(h){d(h)}},x={m:a,at:I,act:Y,ended:t};return e`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${S} error=${f} />
    ${a&&e`<h1>${a.name} <${G} value=${a.status} />${a.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${_e.filter(([s])=>s!=="vnc"||a.display).map(([s,h])=>e`<li><a href=${`#${s}`}>${h}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${ke.map(([s,h,y])=>e`<button onClick=${()=>W(s)} data-action=${s}><${y} />${h}</button>`)}
      </div>
      ${r&&e`<p>Last action: <${H} task=${r} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${E(a.memory_mb)} memory, ${O(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(s=>s.ip_addresses||[]).join(", ")||(a.addresses||[]).map(s=>s.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${U(a.created_at)}</dd>
      </dl>
      <div id="addresses"><${ue} m=${a} base=${n?v:T} onMachine=${s=>l(h=>({...h,...s}))} /></div>
      <div id="graphs"><${w} id="graphs-part" title="Graphs"><${ge} url=${`${n?v:T}/usage-graphs`} /><//></div>
      <div id="console"><${w} id="console-part" title="Serial console">
        ${i?e`<${ve} url=${`${n?v:T}/console`} /><button type="button" onClick=${()=>g(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>g(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&e`<div id="vnc"><${w} id="vnc-part" title="Graphical console (VNC)">
        ${C?e`<${ye} url=${`${n?v:T}/console`} /><button type="button" onClick=${()=>N(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>N(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${ce} ...${x} /></div>
      <div id="snapshots"><${pe} ...${x} /></div>
      <div id="media"><${me} ...${x} /></div>
      <div id="reinstall"><${$e} ...${x} /></div>
      <div id="resize"><${be} ...${x} /></div>
      <div id="tasks"><${w} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(s=>B.value[s.id]||s).map(s=>e`<tr key=${s.id}><td>${s.type}</td><td><${G} value=${s.status} /></td><td>${U(s.created_at)}</td><td>${s.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function ht(){let[o,n]=$(null),[c,a]=$(null),[l,m]=$([""]),u=l[l.length-1];R(()=>{let r=!0;return P("GET",`${L}?limit=50${u?`&cursor=${encodeURIComponent(u)}`:""}`).then(p=>r&&n(p),p=>r&&a(p)),()=>{r=!1}},[u]),R(()=>V((r,p)=>{r!=="machine.updated"&&r!=="machine.deleted"||n(t=>{if(!t)return t;let b=t.items.findIndex(i=>i.id===p.id);return r==="machine.deleted"?b<0?t:{...t,items:t.items.filter(i=>i.id!==p.id)}:b>=0?{...t,items:t.items.map(i=>i.id===p.id?{...i,...p}:i)}:l.length===1?{...t,items:[p,...t.items]}:t})}),[l.length]);let f=r=>n(p=>p&&!p.items.some(t=>t.id===r.machine.id)?{...p,items:[{...r.machine,task_id:r.task.id},...p.items]}:p),d={};for(let r of Object.values(B.value)){let p=d[r.target_id];(!p||p.created_at<r.created_at)&&(d[r.target_id]=r)}return e`<main id="main">
    <h1>Machines</h1>
    <${S} error=${c} />
    <${Se} onCreated=${f} />
    ${o&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${o.items.map(r=>e`<tr key=${r.id} data-machine=${r.id}>
        <td><a href=${`/machines/${encodeURIComponent(r.id)}`}>${r.name}</a></td>
        <td><${G} value=${r.status} /></td>
        <td>${r.cpu_cores} CPU, ${E(r.memory_mb)}, ${O(r.disk_gb)}</td>
        <td>${d[r.id]?e`<${H} task=${d[r.id]} />`:r.task_id?e`<${H} task=${{id:r.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${l.length===1} onClick=${()=>m(l.slice(0,-1))}>Previous</button>
      <button disabled=${!o.next_cursor} onClick=${()=>m([...l,o.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Se({onCreated:o,admin:n}){let[c,a]=$(null),l=D(F),m=D(q),u=D(n?se:null),[f,d]=$(!1),[r,p]=$(null),[t,b]=$("default"),{items:i,names:g}=ae(!!n),C=m?.items||[],N=n||m&&C.length===0,T=r??(N?"":C[0]?.id||""),v=C.find(s=>s.id===T),I=v?.allowed_templates?.length?new Set(v.allowed_templates):null,A=v?v.location_id||"default":t,Y=l&&{...l,items:l.items.filter(s=>(!I||I.has(s.id))&&ne(A)(s))},W=async s=>{s.preventDefault();let h=new FormData(s.target),y={name:h.get("name"),template_id:h.get("template_id")};if(v)y.plan_id=v.id;else for(let _ of["cpu_cores","memory_mb","disk_gb"])h.get(_)&&(y[_]=Number(h.get(_)));!v&&t!=="default"&&(y.location_id=t),a(null);try{o(await P("POST",n?`${L}?tenant_id=${encodeURIComponent(h.get("tenant_id"))}`:L,y)),s.target.reset(),d(!1)}catch(_){a(_)}};if(!f)return e`<button class="primary" onClick=${()=>d(!0)}>New machine</button>`;let x=c?.fields?.plan_id;return e`<form class="card" onSubmit=${W} aria-label="New machine">
    <${S} error=${c||m?.error||u?.error} />
    <div class="grid">
      <${M} name="name" label="Name" error=${c} required />
      ${n&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(u?.items||[]).map(s=>e`<option value=${s.id}>${s.name}</option>`)}</select></label>`}
      ${C.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${T} onChange=${s=>p(s.target.value)} aria-invalid=${x?"true":void 0} aria-describedby=${x?"plan_id-error":void 0}>
          ${N&&e`<option value="">custom sizes</option>`}
          ${C.map(s=>e`<option value=${s.id}>${s.name}: ${s.cpu_cores} CPU, ${E(s.memory_mb)}, ${O(s.disk_gb)}${n&&s.location_id&&s.location_id!=="default"?`, in ${K(g,s.location_id)}`:""}</option>`)}
        </select>${x&&e`<span class="field-error" id="plan_id-error">${x}</span>`}</label>`}
      ${n&&(v?e`<p class="muted" data-plan-location>Made in ${K(g,v.location_id)}, the plan's location</p>`:e`<${re} items=${i} error=${c} value=${t} onChange=${s=>b(s.target.value)} />`)}
      <${ee} key=${`${T}@${A}`} templates=${Y} error=${c} />
      ${v?e`<p class="muted" data-plan-sizes>${v.cpu_cores} CPU, ${E(v.memory_mb)}, ${O(v.disk_gb)} from the plan</p>`:N&&e`
          <${M} name="cpu_cores" label="CPU cores" error=${c} type="number" min="1" />
          <${M} name="memory_mb" label="Memory (MB)" error=${c} type="number" min="1" />
          <${M} name="disk_gb" label="Disk (GB)" error=${c} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`}export{Ce as a,Pe as b,xe as c,Te as d,Re as e,Ee as f,Oe as g,ze as h,De as i,Ne as j,Ie as k,Ue as l,Ge as m,nt as n,ht as o,Se as p};
