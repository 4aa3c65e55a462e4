import{a as Y}from"./chunk-AX76OU66.js";import{b as X,c as H,d as de,e as pe}from"./chunk-5DRSVGIT.js";import{a as F,b as J}from"./chunk-MIMHD4HQ.js";import{b as re}from"./chunk-YQSPOLJD.js";import{a as U,c as K,d as Q,e as le,f as ce}from"./chunk-PBPSO6V7.js";import{a as T}from"./chunk-HOYY2OMK.js";import{a as $,b as O,l as S,n as N,o as I,p as B,q as V,r as C,s as M,t as ie,u as P}from"./chunk-E4PU34WH.js";import{g as e}from"./chunk-XGWGEZEQ.js";var y=o=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${o} /></svg>`,De=y("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Oe=y("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),Ne=y("M3 4h18v4H3zM5 8v12h14V8M10 12h4"),Ie=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Ue=y("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),se=y("M7 4l13 8-13 8z"),Z=y("M6 6h12v12H6z"),ue=y("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Ge=y("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Le=y("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Ye=y("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ae=y("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Be=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),Ve=y("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),qe=y("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Fe=y("M3 12h4l3-7 4 14 3-7h4"),He=y("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"),je=y("M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z"),We=y("M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Je=y("M6 9l6 6 6-6"),Ke=y("M4 12l5 5L20 6");function me(o,t){let[d,a]=$(null),[l,m]=$(null);return O(()=>{let u=!0;return S("GET",o).then(f=>{u&&(a(f),m(null))},f=>u&&m(f)),()=>{u=!1}},[o,t]),[d,l]}function $e({at:o,act:t,ended:d}){let[a,l]=$(0),[m,u]=me(o("/backups?limit=100"),`${d}/${a}`),[f,c]=$(null),[r,p]=$(!0),n=async s=>{c(null);try{return await s(),!0}catch(h){return c(h),!1}};return e`<${P} id="backups-part" title="Backups">
    <${C} error=${f||u} />
    <form class="inline-form" onSubmit=${async s=>{s.preventDefault();let h=new FormData(s.target),_={mode:h.get("mode")};h.get("note")&&(_.note=h.get("note")),await n(()=>t("POST","/backups",_))&&s.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${M} name="note" label="Note (optional)" error=${f} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${r} onChange=${s=>p(s.target.checked)} /> Start the machine after a restore</label>
    ${m&&(m.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${m.items.map(s=>e`<tr key=${s.id} data-backup=${s.id}>
        <td>${B(s.created_at)}</td><td>${ie(s.size_bytes)}</td><td>${s.mode}</td><td>${s.origin}</td><td>${s.note||""}</td>
        <td><${T} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>n(()=>t("POST",`/backups/${encodeURIComponent(s.id)}/restore`,{start_after:r}))} />
          <${T} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?"
          onYes=${()=>n(()=>S("DELETE",`/api/resources/backups/${encodeURIComponent(s.id)}`)).then(h=>h&&l(_=>_+1))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function he({m:o,at:t,act:d,ended:a}){let[l,m]=me(t("/snapshots?limit=200"),a),[u,f]=$(null),c=async n=>{f(null);try{return await n(),!0}catch(v){return f(v),!1}},r=async n=>{n.preventDefault();let v=new FormData(n.target),s={name:v.get("name")};v.get("description")&&(s.description=v.get("description")),v.get("include_memory")&&(s.include_memory=!0),await c(()=>d("POST","/snapshots",s))&&n.target.reset()},p=n=>`/snapshots/${encodeURIComponent(n.name)}`;return e`<${P} id="snapshots-part" title="Snapshots">
    <${C} error=${u||m} />
    <form class="inline-form" onSubmit=${r} aria-label="Take a snapshot">
      <${M} name="name" label="Name" error=${u} required />
      <${M} name="description" label="Description (optional)" error=${u} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${o.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${l&&(l.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${l.items.map(n=>e`<tr key=${n.name} data-snapshot=${n.name}>
        <td>${n.name}</td><td>${B(n.created_at)}</td><td>${n.includes_memory?"yes":"no"}</td><td>${n.description||""}</td>
        <td class="row-actions">
          <${T} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${n.name}? Changes since it are lost.`}
            onYes=${()=>c(()=>d("POST",`${p(n)}/rollback`))} />
          <${T} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${n.name}?`}
            onYes=${()=>c(()=>d("DELETE",p(n)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function be({m:o,base:t,onMachine:d}){let[a,l]=$(null),[m,u]=$(""),f=s=>`${t}/addresses/${encodeURIComponent(s.address)}`,c=async s=>{l(null);try{let h=await s();return h&&h.id&&d(h),!0}catch(h){return l(h),!1}},r=async(s,h)=>{s.preventDefault();let _=new FormData(s.target).get("ptr").trim();await c(()=>S("PUT",`${f(h)}/ptr`,{ptr:_}))&&u("")},p=async s=>{s.preventDefault();let h=new FormData(s.target),_={version:Number(h.get("version"))};h.get("address")&&(_.address=h.get("address").trim()),await c(()=>S("POST",`${t}/addresses`,_))&&s.target.reset()},n=o.addresses||[],v=n[0];return e`<${P} id="addresses-part" title="Addresses">
    <${C} error=${a} />
    ${n.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${n.map(s=>e`<tr key=${s.address} data-address=${s.address}>
        <td>${s.address}/${s.prefix}${s===v?" (primary)":""}</td><td>${s.gateway||""}</td>
        <td>${m===s.address?e`<form class="inline-form" onSubmit=${h=>r(h,s)} aria-label=${`Reverse DNS name of ${s.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${s.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>u("")}>Cancel</button></form>`:e`<span data-ptr>${s.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${m!==s.address&&e`<button type="button" data-edit-ptr onClick=${()=>u(s.address)}>Edit reverse DNS</button>`}
          ${s!==v&&e`<${T} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${s.address} back to its pool? The machine stops using it.`}
            onYes=${()=>c(()=>S("DELETE",f(s)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${p} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function ae(){let[o,t]=$(null);return[o,async a=>{t(null);try{return await a(),!0}catch(l){return t(l),!1}}]}function fe({m:o,act:t}){let d=U(ce),[a,l]=ae(),[m,u]=$(""),f=(d?.items||[]).filter(c=>c.status==="ready");return e`<${P} id="media-part" title="ISO and rescue">
    <${C} error=${a||d?.error} />
    <p>In the CD-ROM drive: <strong data-media>${o.media?o.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${c=>u(c.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${d?f.length?"choose an image":"no image is ready":"loading…"}</option>
          ${f.map(c=>e`<option value=${c.id}>${c.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||o.rescue} onClick=${()=>l(()=>t("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!o.media||o.rescue} onClick=${()=>l(()=>t("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${o.rescue?"on":"off"}</strong>.</p>
    ${o.rescue?e`<${T} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>l(()=>t("POST","/rescue",{enabled:!1}))} />`:e`<${T} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>l(()=>t("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ge({m:o,act:t}){let d=U(K),[a,l]=ae(),[m,u]=$(null),f=r=>{r.preventDefault(),u(r.target)},c=async()=>{let r=new FormData(m),p={template_id:r.get("template_id")};r.get("password")&&(p.password=r.get("password"));let n=String(r.get("ssh_keys")||"").split(`
`).map(v=>v.trim()).filter(Boolean);n.length&&(p.ssh_keys=n),await l(()=>t("POST","/reinstall",p))&&m.reset(),u(null)};return e`<${P} id="reinstall-part" title="Reinstall">
    <${C} error=${a||d?.error} />
    <form onSubmit=${f} aria-label="Reinstall">
      <div class="grid">
        <${ne} templates=${d} error=${a} value=${o.template_id} />
        <${M} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${r=>r?.focus()} onClick=${c}>Yes, reinstall</button>
            <button type="button" onClick=${()=>u(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function ne({templates:o,error:t,value:d}){let a=t?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!o&&e`<option value="">loading…</option>`}
      ${(o?.items||[]).map(l=>e`<option value=${l.id} selected=${l.id===d}>${l.name}${l.disk_gb?` (at least ${l.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&e`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var oe=o=>t=>{t&&!t.dataset.filled&&(t.value=o,t.dataset.filled="1")};function ve({m:o,act:t}){let d=U(Q),[a,l]=ae(),[m,u]=$(""),f=async c=>{c.preventDefault();let r=new FormData(c.target),p={};for(let n of["cpu_cores","memory_mb","disk_gb"]){let v=Number(r.get(n));r.get(n)&&v!==o[n]&&(p[n]=v)}Object.keys(p).length&&await l(()=>t("PATCH","/resources",p))};return e`<${P} id="resize-part" title="Resize">
    <${C} error=${a||d?.error} />
    ${d?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${c=>u(c.target.value)}>
        <option value="">choose a plan</option>
        ${d.items.map(c=>e`<option value=${c.id}>${c.name}: ${c.cpu_cores} CPU, ${N(c.memory_mb)}, ${I(c.disk_gb)}${c.id===o.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>l(()=>t("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${o.cpu_cores}/${o.memory_mb}/${o.disk_gb}`} onSubmit=${f} aria-label="Resize">
      <div class="grid">
        <${M} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${oe(o.cpu_cores)} />
        <${M} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${oe(o.memory_mb)} />
        <${M} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${o.disk_gb} inputRef=${oe(o.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var _e=Y(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),Me=Y(()=>import("./terminal-BSGQFQT7.js"),"Console"),we=Y(()=>import("./vnc-7YJN2TCX.js"),"VNC"),Se=Y(()=>import("./machine-manage-UT6EYJN6.js"),"Manage"),Ce=Y(()=>import("./machine-manage-UT6EYJN6.js"),"Operate"),Pe=Y(()=>import("./usage-GSX4N36M.js"),"Usage"),j="/api/client/machines";function ee({task:o}){if(!o)return null;let t=F.value[o.id]||o;return e`<span class="task" aria-live="polite">${t.type}: <${V} value=${t.status} />${t.error?e` <span class="field-error">${t.error}</span>`:""}</span>`}var xe=[["start","Start",se],["stop","Stop",Z],["shutdown","Shut down",Z],["reboot","Reboot",ue],["suspend","Suspend",Z],["resume","Resume",se]],Te=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["usage","Usage"],["manage","Name and deletion"],["operate","Operator"],["tasks","Tasks"]],Re=(o,t)=>d=>{let a=`${o}${d}`;return t?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(t)}`:a};function yt({id:o,admin:t,tenant:d}){let[a,l]=$(null),[m,u]=$([]),[f,c]=$(null),[r,p]=$(null),[n,v]=$(0),[s,h]=$(!1),[_,G]=$(!1),{names:q}=X(!!t),k=`${j}/${encodeURIComponent(o)}`,R=`/api/virt/vms/${encodeURIComponent(o)}`,D=!!t&&!d,A=D?i=>`${R}${i}`:Re(k,t?d:""),W=()=>S("GET",A("")).then(i=>{l(i),i.last_task&&p(g=>g||i.last_task)},c);O(()=>{l(null),p(null),c(null),h(!1),G(!1),W(),D?u([]):S("GET",A("/tasks?limit=20")).then(i=>u(i.items),()=>{})},[o,d]),O(()=>J((i,g)=>{i==="machine.updated"&&g.id===o&&l(x=>x&&{...x,...g}),i==="task.updated"&&g.target_id===o&&(u(x=>x.some(E=>E.id===g.id)?x.map(E=>E.id===g.id?g:E):[g,...x]),(g.status==="succeeded"||g.status==="failed")&&(v(x=>x+1),W()))}),[o]);let L=async(i,g,x)=>{let E=await S(i,g.startsWith("/api/")?g:A(g),x);return p(E.task),u(te=>te.some(ye=>ye.id===E.task.id)?te:[E.task,...te]),E.task},b=async i=>{c(null);try{await L("POST",`/actions/${i}`)}catch(g){c(g)}},w={m:a,at:A,act:L,ended:n,own:D},z=i=>!D||!["backups","snapshots","resize"].includes(i);return e`<main id="main">
    <p><a href=${t?"/admin/machines":"/machines"}>← Machines</a></p>
    <${C} error=${f} />
    ${a&&e`<h1>${a.name} <${V} value=${a.status} />${a.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Te.filter(([i])=>(i!=="vnc"||a.display)&&(i!=="operate"||t)&&z(i)).map(([i,g])=>e`<li><a href=${`#${i}`}>${g}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${xe.map(([i,g,x])=>e`<button onClick=${()=>b(i)} data-action=${i}><${x} />${g}</button>`)}
        <${T} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${()=>b("reset")} />
      </div>
      ${r&&e`<p>Last action: <${ee} task=${r} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${N(a.memory_mb)} memory, ${I(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        ${t&&e`<dt>Location</dt><dd data-location>${H(q,a.location_id)}</dd>`}
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(i=>i.ip_addresses||[]).join(", ")||(a.addresses||[]).map(i=>i.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${B(a.created_at)}</dd>
      </dl>
      <div id="addresses"><${be} m=${a} base=${t?R:k} onMachine=${i=>l(g=>({...g,...i}))} /></div>
      <div id="graphs"><${P} id="graphs-part" title="Graphs"><${_e} url=${`${t?R:k}/usage-graphs`} /><//></div>
      <div id="console"><${P} id="console-part" title="Serial console">
        ${s?e`<${Me} url=${`${t?R:k}/console`} /><button type="button" onClick=${()=>h(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>h(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&e`<div id="vnc"><${P} id="vnc-part" title="Graphical console (VNC)">
        ${_?e`<${we} url=${`${t?R:k}/console`} /><button type="button" onClick=${()=>G(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>G(!0)}>Open the graphical console</button>`}
      <//></div>`}
      ${D&&e`<p class="muted" data-no-tenant>This machine belongs to no tenant: its backups, snapshots and resize come with one (Give to a tenant, on the machines list); the operator's part below changes its size or plan.</p>`}
      ${z("backups")&&e`<div id="backups"><${$e} ...${w} /></div>`}
      ${z("snapshots")&&e`<div id="snapshots"><${he} ...${w} /></div>`}
      <div id="media"><${fe} ...${w} /></div>
      <div id="reinstall"><${ge} ...${w} /></div>
      ${z("resize")&&e`<div id="resize"><${ve} ...${w} /></div>`}
      <div id="usage"><${Pe} path=${t?`${R}/usage`:`${k}/usage`} /></div>
      <div id="manage"><${Se} ...${w} onGone=${()=>re(t?"/admin/machines":"/machines")} /></div>
      ${t&&e`<div id="operate"><${Ce} ...${w} onMachine=${i=>l(g=>({...g,...i}))} /></div>`}
      <div id="tasks"><${P} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(i=>F.value[i.id]||i).map(i=>e`<tr key=${i.id}><td>${i.type}</td><td><${V} value=${i.status} /></td><td>${B(i.created_at)}</td><td>${i.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function zt(){let[o,t]=$(null),[d,a]=$(null),[l,m]=$([""]),u=l[l.length-1];O(()=>{let r=!0;return S("GET",`${j}?limit=50${u?`&cursor=${encodeURIComponent(u)}`:""}`).then(p=>r&&t(p),p=>r&&a(p)),()=>{r=!1}},[u]),O(()=>J((r,p)=>{r!=="machine.updated"&&r!=="machine.deleted"||t(n=>{if(!n)return n;let v=n.items.findIndex(s=>s.id===p.id);return r==="machine.deleted"?v<0?n:{...n,items:n.items.filter(s=>s.id!==p.id)}:v>=0?{...n,items:n.items.map(s=>s.id===p.id?{...s,...p}:s)}:l.length===1?{...n,items:[p,...n.items]}:n})}),[l.length]);let f=r=>t(p=>p&&!p.items.some(n=>n.id===r.machine.id)?{...p,items:[{...r.machine,task_id:r.task.id},...p.items]}:p),c={};for(let r of Object.values(F.value)){let p=c[r.target_id];(!p||p.created_at<r.created_at)&&(c[r.target_id]=r)}return e`<main id="main">
    <h1>Machines</h1>
    <${C} error=${d} />
    <${ze} onCreated=${f} />
    ${o&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${o.items.map(r=>e`<tr key=${r.id} data-machine=${r.id}>
        <td><a href=${`/machines/${encodeURIComponent(r.id)}`}>${r.name}</a></td>
        <td><${V} value=${r.status} /></td>
        <td>${r.cpu_cores} CPU, ${N(r.memory_mb)}, ${I(r.disk_gb)}</td>
        <td>${c[r.id]?e`<${ee} task=${c[r.id]} />`:r.task_id?e`<${ee} task=${{id:r.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${l.length===1} onClick=${()=>m(l.slice(0,-1))}>Previous</button>
      <button disabled=${!o.next_cursor} onClick=${()=>m([...l,o.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function ze({onCreated:o,admin:t}){let[d,a]=$(null),l=U(K),m=U(Q),u=U(t?le:null),[f,c]=$(!1),[r,p]=$(null),[n,v]=$("default"),{items:s,names:h}=X(!!t),_=m?.items||[],G=t||m&&_.length===0,q=r??(G?"":_[0]?.id||""),k=_.find(b=>b.id===q),R=k?.allowed_templates?.length?new Set(k.allowed_templates):null,D=k?k.location_id||"default":n,A=l&&{...l,items:l.items.filter(b=>(!R||R.has(b.id))&&de(D)(b))},W=async b=>{b.preventDefault();let w=new FormData(b.target),z={name:w.get("name"),template_id:w.get("template_id")};if(k)z.plan_id=k.id;else for(let i of["cpu_cores","memory_mb","disk_gb"])w.get(i)&&(z[i]=Number(w.get(i)));!k&&n!=="default"&&(z.location_id=n),a(null);try{o(await S("POST",t?`${j}?tenant_id=${encodeURIComponent(w.get("tenant_id"))}`:j,z)),b.target.reset(),c(!1)}catch(i){a(i)}};if(!f)return e`<button class="primary" onClick=${()=>c(!0)}>New machine</button>`;let L=d?.fields?.plan_id;return e`<form class="card" onSubmit=${W} aria-label="New machine">
    <${C} error=${d||m?.error||u?.error} />
    <div class="grid">
      <${M} name="name" label="Name" error=${d} required />
      ${t&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(u?.items||[]).map(b=>e`<option value=${b.id}>${b.name}</option>`)}</select></label>`}
      ${_.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${q} onChange=${b=>p(b.target.value)} aria-invalid=${L?"true":void 0} aria-describedby=${L?"plan_id-error":void 0}>
          ${G&&e`<option value="">custom sizes</option>`}
          ${_.map(b=>e`<option value=${b.id}>${b.name}: ${b.cpu_cores} CPU, ${N(b.memory_mb)}, ${I(b.disk_gb)}${t&&b.location_id&&b.location_id!=="default"?`, in ${H(h,b.location_id)}`:""}</option>`)}
        </select>${L&&e`<span class="field-error" id="plan_id-error">${L}</span>`}</label>`}
      ${t&&(k?e`<p class="muted" data-plan-location>Made in ${H(h,k.location_id)}, the plan's location</p>`:e`<${pe} items=${s} error=${d} value=${n} onChange=${b=>v(b.target.value)} />`)}
      <${ne} key=${`${q}@${D}`} templates=${A} error=${d} />
      ${k?e`<p class="muted" data-plan-sizes>${k.cpu_cores} CPU, ${N(k.memory_mb)}, ${I(k.disk_gb)} from the plan</p>`:G&&e`
          <${M} name="cpu_cores" label="CPU cores" error=${d} type="number" min="1" />
          <${M} name="memory_mb" label="Memory (MB)" error=${d} type="number" min="1" />
          <${M} name="disk_gb" label="Disk (GB)" error=${d} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>c(!1)}>Cancel</button>
  </form>`}export{De as a,Oe as b,Ne as c,Ie as d,Ue as e,Ge as f,Le as g,Ye as h,Ae as i,Be as j,Ve as k,qe as l,Fe as m,He as n,je as o,We as p,Je as q,Ke as r,yt as s,zt as t,ze as u};
