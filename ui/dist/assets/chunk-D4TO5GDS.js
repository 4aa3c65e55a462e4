import{a as Y}from"./chunk-AX76OU66.js";import{c as q,d as pe,e as ue,f as W}from"./chunk-QCUTTXXJ.js";import{a as j,b as Q}from"./chunk-MIMHD4HQ.js";import{b as ie}from"./chunk-YQSPOLJD.js";import{a as G,c as X,d as Z,e as ce,f as de}from"./chunk-PBPSO6V7.js";import{a as R}from"./chunk-HOYY2OMK.js";import{a as $,b as N,l as C,n as I,o as U,p as B,q as V,r as P,s as w,t as le,u as x}from"./chunk-E4PU34WH.js";import{g as e}from"./chunk-XGWGEZEQ.js";var y=o=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${o} /></svg>`,De=y("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Ne=y("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),Ie=y("M3 4h18v4H3zM5 8v12h14V8M10 12h4"),Ue=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Ge=y("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),oe=y("M7 4l13 8-13 8z"),ee=y("M6 6h12v12H6z"),me=y("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Le=y("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Ye=y("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Ae=y("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Be=y("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Ve=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),qe=y("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Fe=y("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),He=y("M3 12h4l3-7 4 14 3-7h4"),je=y("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"),We=y("M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z"),Je=y("M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Ke=y("M6 9l6 6 6-6"),Qe=y("M4 12l5 5L20 6");function $e(o,s){let[p,a]=$(null),[i,m]=$(null);return N(()=>{let u=!0;return C("GET",o).then(f=>{u&&(a(f),m(null))},f=>u&&m(f)),()=>{u=!1}},[o,s]),[p,i]}function he({at:o,act:s,ended:p}){let[a,i]=$(0),[m,u]=$e(o("/backups?limit=100"),`${p}/${a}`),[f,c]=$(null),[h,v]=$(!0),l=async t=>{c(null);try{return await t(),!0}catch(d){return c(d),!1}};return e`<${x} id="backups-part" title="Backups">
    <${P} error=${f||u} />
    <form class="inline-form" onSubmit=${async t=>{t.preventDefault();let d=new FormData(t.target),_={mode:d.get("mode")};d.get("note")&&(_.note=d.get("note")),await l(()=>s("POST","/backups",_))&&t.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${w} name="note" label="Note (optional)" error=${f} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${h} onChange=${t=>v(t.target.checked)} /> Start the machine after a restore</label>
    ${m&&(m.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${m.items.map(t=>e`<tr key=${t.id} data-backup=${t.id}>
        <td>${B(t.created_at)}</td><td>${le(t.size_bytes)}</td><td>${t.mode}</td><td>${t.origin}</td><td>${t.note||""}</td>
        <td><${R} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>l(()=>s("POST",`/backups/${encodeURIComponent(t.id)}/restore`,{start_after:h}))} />
          <${R} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?"
          onYes=${()=>l(()=>C("DELETE",`/api/resources/backups/${encodeURIComponent(t.id)}`)).then(d=>d&&i(_=>_+1))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function be({m:o,at:s,act:p,ended:a}){let[i,m]=$e(s("/snapshots?limit=200"),a),[u,f]=$(null),c=async l=>{f(null);try{return await l(),!0}catch(n){return f(n),!1}},h=async l=>{l.preventDefault();let n=new FormData(l.target),t={name:n.get("name")};n.get("description")&&(t.description=n.get("description")),n.get("include_memory")&&(t.include_memory=!0),await c(()=>p("POST","/snapshots",t))&&l.target.reset()},v=l=>`/snapshots/${encodeURIComponent(l.name)}`;return e`<${x} id="snapshots-part" title="Snapshots">
    <${P} error=${u||m} />
    <form class="inline-form" onSubmit=${h} aria-label="Take a snapshot">
      <${w} name="name" label="Name" error=${u} required />
      <${w} name="description" label="Description (optional)" error=${u} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${o.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(l=>e`<tr key=${l.name} data-snapshot=${l.name}>
        <td>${l.name}</td><td>${B(l.created_at)}</td><td>${l.includes_memory?"yes":"no"}</td><td>${l.description||""}</td>
        <td class="row-actions">
          <${R} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${l.name}? Changes since it are lost.`}
            onYes=${()=>c(()=>p("POST",`${v(l)}/rollback`))} />
          <${R} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${l.name}?`}
            onYes=${()=>c(()=>p("DELETE",v(l)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function fe({m:o,base:s,onMachine:p}){let[a,i]=$(null),[m,u]=$(""),f=t=>`${s}/addresses/${encodeURIComponent(t.address)}`,c=async t=>{i(null);try{let d=await t();return d&&d.id&&p(d),!0}catch(d){return i(d),!1}},h=async(t,d)=>{t.preventDefault();let _=new FormData(t.target).get("ptr").trim();await c(()=>C("PUT",`${f(d)}/ptr`,{ptr:_}))&&u("")},v=async t=>{t.preventDefault();let d=new FormData(t.target),_={version:Number(d.get("version"))};d.get("address")&&(_.address=d.get("address").trim()),await c(()=>C("POST",`${s}/addresses`,_))&&t.target.reset()},l=o.addresses||[],n=l[0];return e`<${x} id="addresses-part" title="Addresses">
    <${P} error=${a} />
    ${l.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${l.map(t=>e`<tr key=${t.address} data-address=${t.address}>
        <td>${t.address}/${t.prefix}${t===n?" (primary)":""}</td><td>${t.gateway||""}</td>
        <td>${m===t.address?e`<form class="inline-form" onSubmit=${d=>h(d,t)} aria-label=${`Reverse DNS name of ${t.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${t.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>u("")}>Cancel</button></form>`:e`<span data-ptr>${t.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${m!==t.address&&e`<button type="button" data-edit-ptr onClick=${()=>u(t.address)}>Edit reverse DNS</button>`}
          ${t!==n&&e`<${R} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${t.address} back to its pool? The machine stops using it.`}
            onYes=${()=>c(()=>C("DELETE",f(t)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${v} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function ne(){let[o,s]=$(null);return[o,async a=>{s(null);try{return await a(),!0}catch(i){return s(i),!1}}]}function ge({m:o,act:s}){let p=G(de),[a,i]=ne(),[m,u]=$(""),f=(p?.items||[]).filter(c=>c.status==="ready");return e`<${x} id="media-part" title="ISO and rescue">
    <${P} error=${a||p?.error} />
    <p>In the CD-ROM drive: <strong data-media>${o.media?o.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${c=>u(c.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${p?f.length?"choose an image":"no image is ready":"loading…"}</option>
          ${f.map(c=>e`<option value=${c.id}>${c.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||o.rescue} onClick=${()=>i(()=>s("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!o.media||o.rescue} onClick=${()=>i(()=>s("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${o.rescue?"on":"off"}</strong>.</p>
    ${o.rescue?e`<${R} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>s("POST","/rescue",{enabled:!1}))} />`:e`<${R} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>s("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ve({m:o,act:s}){let p=G(X),[a,i]=ne(),[m,u]=$(null),f=h=>{h.preventDefault(),u(h.target)},c=async()=>{let h=new FormData(m),v={template_id:h.get("template_id")};h.get("password")&&(v.password=h.get("password"));let l=String(h.get("ssh_keys")||"").split(`
`).map(n=>n.trim()).filter(Boolean);l.length&&(v.ssh_keys=l),await i(()=>s("POST","/reinstall",v))&&m.reset(),u(null)};return e`<${x} id="reinstall-part" title="Reinstall">
    <${P} error=${a||p?.error} />
    <form onSubmit=${f} aria-label="Reinstall">
      <div class="grid">
        <${re} templates=${p} error=${a} value=${o.template_id} />
        <${w} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${h=>h?.focus()} onClick=${c}>Yes, reinstall</button>
            <button type="button" onClick=${()=>u(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function re({templates:o,error:s,value:p}){let a=s?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!o&&e`<option value="">loading…</option>`}
      ${(o?.items||[]).map(i=>e`<option value=${i.id} selected=${i.id===p}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&e`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var ae=o=>s=>{s&&!s.dataset.filled&&(s.value=o,s.dataset.filled="1")};function ye({m:o,act:s}){let p=G(Z),[a,i]=ne(),[m,u]=$(""),f=async c=>{c.preventDefault();let h=new FormData(c.target),v={};for(let l of["cpu_cores","memory_mb","disk_gb"]){let n=Number(h.get(l));h.get(l)&&n!==o[l]&&(v[l]=n)}Object.keys(v).length&&await i(()=>s("PATCH","/resources",v))};return e`<${x} id="resize-part" title="Resize">
    <${P} error=${a||p?.error} />
    ${p?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${c=>u(c.target.value)}>
        <option value="">choose a plan</option>
        ${p.items.map(c=>e`<option value=${c.id}>${c.name}: ${c.cpu_cores} CPU, ${I(c.memory_mb)}, ${U(c.disk_gb)}${c.id===o.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>i(()=>s("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${o.cpu_cores}/${o.memory_mb}/${o.disk_gb}`} onSubmit=${f} aria-label="Resize">
      <div class="grid">
        <${w} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${ae(o.cpu_cores)} />
        <${w} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${ae(o.memory_mb)} />
        <${w} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${o.disk_gb} inputRef=${ae(o.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var Me=Y(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),we=Y(()=>import("./terminal-BSGQFQT7.js"),"Console"),Se=Y(()=>import("./vnc-7YJN2TCX.js"),"VNC"),Ce=Y(()=>import("./machine-manage-UT6EYJN6.js"),"Manage"),Pe=Y(()=>import("./machine-manage-UT6EYJN6.js"),"Operate"),xe=Y(()=>import("./usage-GSX4N36M.js"),"Usage"),J="/api/client/machines";function te({task:o}){if(!o)return null;let s=j.value[o.id]||o;return e`<span class="task" aria-live="polite">${s.type}: <${V} value=${s.status} />${s.error?e` <span class="field-error">${s.error}</span>`:""}</span>`}var Te=[["start","Start",oe],["stop","Stop",ee],["shutdown","Shut down",ee],["reboot","Reboot",me],["suspend","Suspend",ee],["resume","Resume",oe]],Re=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["usage","Usage"],["manage","Name and deletion"],["operate","Operator"],["tasks","Tasks"]],ze=(o,s)=>p=>{let a=`${o}${p}`;return s?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(s)}`:a};function kt({id:o,admin:s,tenant:p}){let[a,i]=$(null),[m,u]=$([]),[f,c]=$(null),[h,v]=$(null),[l,n]=$(0),[t,d]=$(!1),[_,M]=$(!1),{items:F,names:H}=W(!!s),k=`${J}/${encodeURIComponent(o)}`,z=`/api/virt/vms/${encodeURIComponent(o)}`,D=!!s&&!p,A=D?r=>`${z}${r}`:ze(k,s?p:""),K=()=>C("GET",A("")).then(r=>{i(r),r.last_task&&v(g=>g||r.last_task)},c);N(()=>{i(null),v(null),c(null),d(!1),M(!1),K(),D?u([]):C("GET",A("/tasks?limit=20")).then(r=>u(r.items),()=>{})},[o,p]),N(()=>Q((r,g)=>{r==="machine.updated"&&g.id===o&&i(T=>T&&{...T,...g}),r==="task.updated"&&g.target_id===o&&(u(T=>T.some(O=>O.id===g.id)?T.map(O=>O.id===g.id?g:O):[g,...T]),(g.status==="succeeded"||g.status==="failed")&&(n(T=>T+1),K()))}),[o]);let L=async(r,g,T)=>{let O=await C(r,g.startsWith("/api/")?g:A(g),T);return v(O.task),u(se=>se.some(ke=>ke.id===O.task.id)?se:[O.task,...se]),O.task},b=async r=>{c(null);try{await L("POST",`/actions/${r}`)}catch(g){c(g)}},S={m:a,at:A,act:L,ended:l,own:D},E=r=>!D||!["backups","snapshots","resize"].includes(r);return e`<main id="main">
    <p><a href=${s?"/admin/machines":"/machines"}>← Machines</a></p>
    <${P} error=${f} />
    ${a&&e`<h1>${a.name} <${V} value=${a.status} />${a.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Re.filter(([r])=>(r!=="vnc"||a.display)&&(r!=="operate"||s)&&E(r)).map(([r,g])=>e`<li><a href=${`#${r}`}>${g}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${Te.map(([r,g,T])=>e`<button onClick=${()=>b(r)} data-action=${r}><${T} />${g}</button>`)}
        <${R} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${()=>b("reset")} />
      </div>
      ${h&&e`<p>Last action: <${te} task=${h} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${I(a.memory_mb)} memory, ${U(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        ${(s||F.length>1)&&e`<dt>Location</dt><dd data-location>${q(H,a.location_id)}</dd>`}
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(r=>r.ip_addresses||[]).join(", ")||(a.addresses||[]).map(r=>r.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${B(a.created_at)}</dd>
      </dl>
      <div id="addresses"><${fe} m=${a} base=${s?z:k} onMachine=${r=>i(g=>({...g,...r}))} /></div>
      <div id="graphs"><${x} id="graphs-part" title="Graphs"><${Me} url=${`${s?z:k}/usage-graphs`} /><//></div>
      <div id="console"><${x} id="console-part" title="Serial console">
        ${t?e`<${we} url=${`${s?z:k}/console`} /><button type="button" onClick=${()=>d(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>d(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&e`<div id="vnc"><${x} id="vnc-part" title="Graphical console (VNC)">
        ${_?e`<${Se} url=${`${s?z:k}/console`} /><button type="button" onClick=${()=>M(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>M(!0)}>Open the graphical console</button>`}
      <//></div>`}
      ${D&&e`<p class="muted" data-no-tenant>This machine belongs to no tenant: its backups, snapshots and resize come with one (Give to a tenant, on the machines list); the operator's part below changes its size or plan.</p>`}
      ${E("backups")&&e`<div id="backups"><${he} ...${S} /></div>`}
      ${E("snapshots")&&e`<div id="snapshots"><${be} ...${S} /></div>`}
      <div id="media"><${ge} ...${S} /></div>
      <div id="reinstall"><${ve} ...${S} /></div>
      ${E("resize")&&e`<div id="resize"><${ye} ...${S} /></div>`}
      <div id="usage"><${xe} path=${s?`${z}/usage`:`${k}/usage`} /></div>
      <div id="manage"><${Ce} ...${S} onGone=${()=>ie(s?"/admin/machines":"/machines")} /></div>
      ${s&&e`<div id="operate"><${Pe} ...${S} onMachine=${r=>i(g=>({...g,...r}))} /></div>`}
      <div id="tasks"><${x} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(r=>j.value[r.id]||r).map(r=>e`<tr key=${r.id}><td>${r.type}</td><td><${V} value=${r.status} /></td><td>${B(r.created_at)}</td><td>${r.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function Et(){let[o,s]=$(null),[p,a]=$(null),[i,m]=$([""]),u=i[i.length-1],{items:f,names:c}=W(!1),h=f.length>1;N(()=>{let n=!0;return C("GET",`${J}?limit=50${u?`&cursor=${encodeURIComponent(u)}`:""}`).then(t=>n&&s(t),t=>n&&a(t)),()=>{n=!1}},[u]),N(()=>Q((n,t)=>{n!=="machine.updated"&&n!=="machine.deleted"||s(d=>{if(!d)return d;let _=d.items.findIndex(M=>M.id===t.id);return n==="machine.deleted"?_<0?d:{...d,items:d.items.filter(M=>M.id!==t.id)}:_>=0?{...d,items:d.items.map(M=>M.id===t.id?{...M,...t}:M)}:i.length===1?{...d,items:[t,...d.items]}:d})}),[i.length]);let v=n=>s(t=>t&&!t.items.some(d=>d.id===n.machine.id)?{...t,items:[{...n.machine,task_id:n.task.id},...t.items]}:t),l={};for(let n of Object.values(j.value)){let t=l[n.target_id];(!t||t.created_at<n.created_at)&&(l[n.target_id]=n)}return e`<main id="main">
    <h1>Machines</h1>
    <${P} error=${p} />
    <${Ee} onCreated=${v} />
    ${o&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th>${h&&e`<th scope="col">Location</th>`}<th scope="col">Task</th></tr></thead>
      <tbody>${o.items.map(n=>e`<tr key=${n.id} data-machine=${n.id}>
        <td><a href=${`/machines/${encodeURIComponent(n.id)}`}>${n.name}</a></td>
        <td><${V} value=${n.status} /></td>
        <td>${n.cpu_cores} CPU, ${I(n.memory_mb)}, ${U(n.disk_gb)}</td>
        ${h&&e`<td data-location>${q(c,n.location_id)}</td>`}
        <td>${l[n.id]?e`<${te} task=${l[n.id]} />`:n.task_id?e`<${te} task=${{id:n.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>m(i.slice(0,-1))}>Previous</button>
      <button disabled=${!o.next_cursor} onClick=${()=>m([...i,o.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Ee({onCreated:o,admin:s}){let[p,a]=$(null),i=G(X),m=G(Z),u=G(s?ce:null),[f,c]=$(!1),[h,v]=$(null),[l,n]=$("default"),{items:t,names:d}=W(!!s),_=s||t.length>1,M=m?.items||[],F=s||m&&M.length===0,H=h??(F?"":M[0]?.id||""),k=M.find(b=>b.id===H),z=k?.allowed_templates?.length?new Set(k.allowed_templates):null,D=k?k.location_id||"default":l,A=i&&{...i,items:i.items.filter(b=>(!z||z.has(b.id))&&pe(D)(b))},K=async b=>{b.preventDefault();let S=new FormData(b.target),E={name:S.get("name"),template_id:S.get("template_id")};if(k)E.plan_id=k.id;else for(let r of["cpu_cores","memory_mb","disk_gb"])S.get(r)&&(E[r]=Number(S.get(r)));!k&&l!=="default"&&(E.location_id=l),a(null);try{o(await C("POST",s?`${J}?tenant_id=${encodeURIComponent(S.get("tenant_id"))}`:J,E)),b.target.reset(),c(!1)}catch(r){a(r)}};if(!f)return e`<button class="primary" onClick=${()=>c(!0)}>New machine</button>`;let L=p?.fields?.plan_id;return e`<form class="card" onSubmit=${K} aria-label="New machine">
    <${P} error=${p||m?.error||u?.error} />
    <div class="grid">
      <${w} name="name" label="Name" error=${p} required />
      ${s&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(u?.items||[]).map(b=>e`<option value=${b.id}>${b.name}</option>`)}</select></label>`}
      ${M.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${H} onChange=${b=>v(b.target.value)} aria-invalid=${L?"true":void 0} aria-describedby=${L?"plan_id-error":void 0}>
          ${F&&e`<option value="">custom sizes</option>`}
          ${M.map(b=>e`<option value=${b.id}>${b.name}: ${b.cpu_cores} CPU, ${I(b.memory_mb)}, ${U(b.disk_gb)}${_&&b.location_id&&b.location_id!=="default"?`, in ${q(d,b.location_id)}`:""}</option>`)}
        </select>${L&&e`<span class="field-error" id="plan_id-error">${L}</span>`}</label>`}
      ${_&&(k?e`<p class="muted" data-plan-location>Made in ${q(d,k.location_id)}, the plan's location</p>`:e`<${ue} items=${t} error=${p} value=${l} onChange=${b=>n(b.target.value)} />`)}
      <${re} key=${`${H}@${D}`} templates=${A} error=${p} />
      ${k?e`<p class="muted" data-plan-sizes>${k.cpu_cores} CPU, ${I(k.memory_mb)}, ${U(k.disk_gb)} from the plan</p>`:F&&e`
          <${w} name="cpu_cores" label="CPU cores" error=${p} type="number" min="1" />
          <${w} name="memory_mb" label="Memory (MB)" error=${p} type="number" min="1" />
          <${w} name="disk_gb" label="Disk (GB)" error=${p} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>c(!1)}>Cancel</button>
  </form>`}export{De as a,Ne as b,Ie as c,Ue as d,Ge as e,Le as f,Ye as g,Ae as h,Be as i,Ve as j,qe as k,Fe as l,He as m,je as n,We as o,Je as p,Ke as q,Qe as r,kt as s,Et as t,Ee as u};
