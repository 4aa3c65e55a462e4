import{a as G}from"./chunk-AX76OU66.js";import{c as A,d as ce,e as de,f as F}from"./chunk-QCUTTXXJ.js";import{a as q,b as J}from"./chunk-MIMHD4HQ.js";import{b as ne}from"./chunk-YQSPOLJD.js";import{a as N,c as K,d as Q,e as ie,f as le}from"./chunk-PBPSO6V7.js";import{a as T}from"./chunk-HOYY2OMK.js";import{a as b,b as O,l as C,n as z,o as D,p as L,q as Y,r as P,s as S,t as re,u as x}from"./chunk-E4PU34WH.js";import{g as t}from"./chunk-XGWGEZEQ.js";var k=o=>()=>t`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${o} /></svg>`,Oe=k("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),ze=k("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),De=k("M3 4h18v4H3zM5 8v12h14V8M10 12h4"),Ne=k("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Ie=k("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),te=k("M7 4l13 8-13 8z"),X=k("M6 6h12v12H6z"),pe=k("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Ue=k("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Ge=k("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Le=k("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ye=k("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Ae=k("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),Be=k("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Ve=k("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),qe=k("M3 12h4l3-7 4 14 3-7h4"),Fe=k("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"),He=k("M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z"),je=k("M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z");function ue(o,s){let[p,a]=b(null),[r,u]=b(null);return O(()=>{let m=!0;return C("GET",o).then(g=>{m&&(a(g),u(null))},g=>m&&u(g)),()=>{m=!1}},[o,s]),[p,r]}function me({at:o,act:s,ended:p}){let[a,r]=b(0),[u,m]=ue(o("/backups?limit=100"),`${p}/${a}`),[g,c]=b(null),[f,v]=b(!0),i=async e=>{c(null);try{return await e(),!0}catch(d){return c(d),!1}};return t`<${x} id="backups-part" title="Backups">
    <${P} error=${g||m} />
    <form class="inline-form" onSubmit=${async e=>{e.preventDefault();let d=new FormData(e.target),M={mode:d.get("mode")};d.get("note")&&(M.note=d.get("note")),await i(()=>s("POST","/backups",M))&&e.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${S} name="note" label="Note (optional)" error=${g} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${f} onChange=${e=>v(e.target.checked)} /> Start the machine after a restore</label>
    ${u&&(u.items.length===0?t`<p>No backups yet.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${u.items.map(e=>t`<tr key=${e.id} data-backup=${e.id}>
        <td>${L(e.created_at)}</td><td>${re(e.size_bytes)}</td><td>${e.mode}</td><td>${e.origin}</td><td>${e.note||""}</td>
        <td><${T} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>i(()=>s("POST",`/backups/${encodeURIComponent(e.id)}/restore`,{start_after:f}))} />
          <${T} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?"
          onYes=${()=>i(()=>C("DELETE",`/api/resources/backups/${encodeURIComponent(e.id)}`)).then(d=>d&&r(M=>M+1))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function $e({m:o,at:s,act:p,ended:a}){let[r,u]=ue(s("/snapshots?limit=200"),a),[m,g]=b(null),c=async i=>{g(null);try{return await i(),!0}catch(n){return g(n),!1}},f=async i=>{i.preventDefault();let n=new FormData(i.target),e={name:n.get("name")};n.get("description")&&(e.description=n.get("description")),n.get("include_memory")&&(e.include_memory=!0),await c(()=>p("POST","/snapshots",e))&&i.target.reset()},v=i=>`/snapshots/${encodeURIComponent(i.name)}`;return t`<${x} id="snapshots-part" title="Snapshots">
    <${P} error=${m||u} />
    <form class="inline-form" onSubmit=${f} aria-label="Take a snapshot">
      <${S} name="name" label="Name" error=${m} required />
      <${S} name="description" label="Description (optional)" error=${m} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${o.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${r&&(r.items.length===0?t`<p>No snapshots.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${r.items.map(i=>t`<tr key=${i.name} data-snapshot=${i.name}>
        <td>${i.name}</td><td>${L(i.created_at)}</td><td>${i.includes_memory?"yes":"no"}</td><td>${i.description||""}</td>
        <td class="row-actions">
          <${T} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${i.name}? Changes since it are lost.`}
            onYes=${()=>c(()=>p("POST",`${v(i)}/rollback`))} />
          <${T} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${i.name}?`}
            onYes=${()=>c(()=>p("DELETE",v(i)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function he({m:o,base:s,onMachine:p}){let[a,r]=b(null),[u,m]=b(""),g=e=>`${s}/addresses/${encodeURIComponent(e.address)}`,c=async e=>{r(null);try{let d=await e();return d&&d.id&&p(d),!0}catch(d){return r(d),!1}},f=async(e,d)=>{e.preventDefault();let M=new FormData(e.target).get("ptr").trim();await c(()=>C("PUT",`${g(d)}/ptr`,{ptr:M}))&&m("")},v=async e=>{e.preventDefault();let d=new FormData(e.target),M={version:Number(d.get("version"))};d.get("address")&&(M.address=d.get("address").trim()),await c(()=>C("POST",`${s}/addresses`,M))&&e.target.reset()},i=o.addresses||[],n=i[0];return t`<${x} id="addresses-part" title="Addresses">
    <${P} error=${a} />
    ${i.length===0?t`<p>No addresses from the IP pools.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.map(e=>t`<tr key=${e.address} data-address=${e.address}>
        <td>${e.address}/${e.prefix}${e===n?" (primary)":""}</td><td>${e.gateway||""}</td>
        <td>${u===e.address?t`<form class="inline-form" onSubmit=${d=>f(d,e)} aria-label=${`Reverse DNS name of ${e.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${e.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>m("")}>Cancel</button></form>`:t`<span data-ptr>${e.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${u!==e.address&&t`<button type="button" data-edit-ptr onClick=${()=>m(e.address)}>Edit reverse DNS</button>`}
          ${e!==n&&t`<${T} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${e.address} back to its pool? The machine stops using it.`}
            onYes=${()=>c(()=>C("DELETE",g(e)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${v} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function oe(){let[o,s]=b(null);return[o,async a=>{s(null);try{return await a(),!0}catch(r){return s(r),!1}}]}function be({m:o,act:s}){let p=N(le),[a,r]=oe(),[u,m]=b(""),g=(p?.items||[]).filter(c=>c.status==="ready");return t`<${x} id="media-part" title="ISO and rescue">
    <${P} error=${a||p?.error} />
    <p>In the CD-ROM drive: <strong data-media>${o.media?o.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${u} onChange=${c=>m(c.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${p?g.length?"choose an image":"no image is ready":"loading…"}</option>
          ${g.map(c=>t`<option value=${c.id}>${c.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&t`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!u||o.rescue} onClick=${()=>r(()=>s("POST","/media",{iso_id:u}))}>Mount</button>
      <button type="button" disabled=${!o.media||o.rescue} onClick=${()=>r(()=>s("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${o.rescue?"on":"off"}</strong>.</p>
    ${o.rescue?t`<${T} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>r(()=>s("POST","/rescue",{enabled:!1}))} />`:t`<${T} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>r(()=>s("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function fe({m:o,act:s}){let p=N(K),[a,r]=oe(),[u,m]=b(null),g=f=>{f.preventDefault(),m(f.target)},c=async()=>{let f=new FormData(u),v={template_id:f.get("template_id")};f.get("password")&&(v.password=f.get("password"));let i=String(f.get("ssh_keys")||"").split(`
`).map(n=>n.trim()).filter(Boolean);i.length&&(v.ssh_keys=i),await r(()=>s("POST","/reinstall",v))&&u.reset(),m(null)};return t`<${x} id="reinstall-part" title="Reinstall">
    <${P} error=${a||p?.error} />
    <form onSubmit=${g} aria-label="Reinstall">
      <div class="grid">
        <${ae} templates=${p} error=${a} value=${o.template_id} />
        <${S} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${u?t`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${f=>f?.focus()} onClick=${c}>Yes, reinstall</button>
            <button type="button" onClick=${()=>m(null)}>Cancel</button></p>`:t`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function ae({templates:o,error:s,value:p}){let a=s?.fields?.template_id;return t`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!o&&t`<option value="">loading…</option>`}
      ${(o?.items||[]).map(r=>t`<option value=${r.id} selected=${r.id===p}>${r.name}${r.disk_gb?` (at least ${r.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&t`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var se=o=>s=>{s&&!s.dataset.filled&&(s.value=o,s.dataset.filled="1")};function ge({m:o,act:s}){let p=N(Q),[a,r]=oe(),[u,m]=b(""),g=async c=>{c.preventDefault();let f=new FormData(c.target),v={};for(let i of["cpu_cores","memory_mb","disk_gb"]){let n=Number(f.get(i));f.get(i)&&n!==o[i]&&(v[i]=n)}Object.keys(v).length&&await r(()=>s("PATCH","/resources",v))};return t`<${x} id="resize-part" title="Resize">
    <${P} error=${a||p?.error} />
    ${p?.items?.length>0&&t`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${u} onChange=${c=>m(c.target.value)}>
        <option value="">choose a plan</option>
        ${p.items.map(c=>t`<option value=${c.id}>${c.name}: ${c.cpu_cores} CPU, ${z(c.memory_mb)}, ${D(c.disk_gb)}${c.id===o.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!u} onClick=${()=>r(()=>s("POST","/plan",{plan_id:u}))}>Move to plan</button>
    </div>`}
    <form key=${`${o.cpu_cores}/${o.memory_mb}/${o.disk_gb}`} onSubmit=${g} aria-label="Resize">
      <div class="grid">
        <${S} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${se(o.cpu_cores)} />
        <${S} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${se(o.memory_mb)} />
        <${S} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${o.disk_gb} inputRef=${se(o.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var ke=G(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),_e=G(()=>import("./terminal-BSGQFQT7.js"),"Console"),Me=G(()=>import("./vnc-7YJN2TCX.js"),"VNC"),we=G(()=>import("./machine-manage-QJLJM56E.js"),"Manage"),Se=G(()=>import("./machine-manage-QJLJM56E.js"),"Operate"),Ce=G(()=>import("./usage-GSX4N36M.js"),"Usage"),H="/api/client/machines";function Z({task:o}){if(!o)return null;let s=q.value[o.id]||o;return t`<span class="task" aria-live="polite">${s.type}: <${Y} value=${s.status} />${s.error?t` <span class="field-error">${s.error}</span>`:""}</span>`}var Pe=[["start","Start",te],["stop","Stop",X],["shutdown","Shut down",X],["reboot","Reboot",pe],["suspend","Suspend",X],["resume","Resume",te]],xe=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["usage","Usage"],["manage","Name and deletion"],["operate","Operator"],["tasks","Tasks"]],Te=(o,s)=>p=>{let a=`${o}${p}`;return s?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(s)}`:a};function ft({id:o,admin:s,tenant:p}){let[a,r]=b(null),[u,m]=b([]),[g,c]=b(null),[f,v]=b(null),[i,n]=b(0),[e,d]=b(!1),[M,w]=b(!1),{items:B,names:V}=F(!!s),y=`${H}/${encodeURIComponent(o)}`,E=`/api/virt/vms/${encodeURIComponent(o)}`,I=Te(y,s?p:""),j=()=>C("GET",I("")).then(l=>{r(l),l.last_task&&v(h=>h||l.last_task)},c);O(()=>{r(null),v(null),c(null),d(!1),w(!1),j(),C("GET",I("/tasks?limit=20")).then(l=>m(l.items),()=>{})},[o,p]),O(()=>J((l,h)=>{l==="machine.updated"&&h.id===o&&r(_=>_&&{..._,...h}),l==="task.updated"&&h.target_id===o&&(m(_=>_.some(R=>R.id===h.id)?_.map(R=>R.id===h.id?h:R):[h,..._]),(h.status==="succeeded"||h.status==="failed")&&(n(_=>_+1),j()))}),[o]);let W=async(l,h,_)=>{let R=await C(l,h.startsWith("/api/")?h:I(h),_);return v(R.task),m(ee=>ee.some(ve=>ve.id===R.task.id)?ee:[R.task,...ee]),R.task},U=async l=>{c(null);try{await W("POST",`/actions/${l}`)}catch(h){c(h)}},$={m:a,at:I,act:W,ended:i};return t`<main id="main">
    <p><a href=${s?"/admin/machines":"/machines"}>← Machines</a></p>
    <${P} error=${g} />
    ${a&&t`<h1>${a.name} <${Y} value=${a.status} />${a.rescue?t` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${xe.filter(([l])=>(l!=="vnc"||a.display)&&(l!=="operate"||s)).map(([l,h])=>t`<li><a href=${`#${l}`}>${h}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${Pe.map(([l,h,_])=>t`<button onClick=${()=>U(l)} data-action=${l}><${_} />${h}</button>`)}
        <${T} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${()=>U("reset")} />
      </div>
      ${f&&t`<p>Last action: <${Z} task=${f} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${z(a.memory_mb)} memory, ${D(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        ${(s||B.length>1)&&t`<dt>Location</dt><dd data-location>${A(V,a.location_id)}</dd>`}
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(l=>l.ip_addresses||[]).join(", ")||(a.addresses||[]).map(l=>l.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${L(a.created_at)}</dd>
      </dl>
      <div id="addresses"><${he} m=${a} base=${s?E:y} onMachine=${l=>r(h=>({...h,...l}))} /></div>
      <div id="graphs"><${x} id="graphs-part" title="Graphs"><${ke} url=${`${s?E:y}/usage-graphs`} /><//></div>
      <div id="console"><${x} id="console-part" title="Serial console">
        ${e?t`<${_e} url=${`${s?E:y}/console`} /><button type="button" onClick=${()=>d(!1)}>Close console</button>`:t`<button type="button" onClick=${()=>d(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&t`<div id="vnc"><${x} id="vnc-part" title="Graphical console (VNC)">
        ${M?t`<${Me} url=${`${s?E:y}/console`} /><button type="button" onClick=${()=>w(!1)}>Close the graphical console</button>`:t`<button type="button" onClick=${()=>w(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${me} ...${$} /></div>
      <div id="snapshots"><${$e} ...${$} /></div>
      <div id="media"><${be} ...${$} /></div>
      <div id="reinstall"><${fe} ...${$} /></div>
      <div id="resize"><${ge} ...${$} /></div>
      <div id="usage"><${Ce} path=${s?`${E}/usage`:`${y}/usage`} /></div>
      <div id="manage"><${we} ...${$} onGone=${()=>ne(s?"/admin/machines":"/machines")} /></div>
      ${s&&t`<div id="operate"><${Se} ...${$} onMachine=${l=>r(h=>({...h,...l}))} /></div>`}
      <div id="tasks"><${x} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${u.map(l=>q.value[l.id]||l).map(l=>t`<tr key=${l.id}><td>${l.type}</td><td><${Y} value=${l.status} /></td><td>${L(l.created_at)}</td><td>${l.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function xt(){let[o,s]=b(null),[p,a]=b(null),[r,u]=b([""]),m=r[r.length-1],{items:g,names:c}=F(!1),f=g.length>1;O(()=>{let n=!0;return C("GET",`${H}?limit=50${m?`&cursor=${encodeURIComponent(m)}`:""}`).then(e=>n&&s(e),e=>n&&a(e)),()=>{n=!1}},[m]),O(()=>J((n,e)=>{n!=="machine.updated"&&n!=="machine.deleted"||s(d=>{if(!d)return d;let M=d.items.findIndex(w=>w.id===e.id);return n==="machine.deleted"?M<0?d:{...d,items:d.items.filter(w=>w.id!==e.id)}:M>=0?{...d,items:d.items.map(w=>w.id===e.id?{...w,...e}:w)}:r.length===1?{...d,items:[e,...d.items]}:d})}),[r.length]);let v=n=>s(e=>e&&!e.items.some(d=>d.id===n.machine.id)?{...e,items:[{...n.machine,task_id:n.task.id},...e.items]}:e),i={};for(let n of Object.values(q.value)){let e=i[n.target_id];(!e||e.created_at<n.created_at)&&(i[n.target_id]=n)}return t`<main id="main">
    <h1>Machines</h1>
    <${P} error=${p} />
    <${Re} onCreated=${v} />
    ${o&&t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th>${f&&t`<th scope="col">Location</th>`}<th scope="col">Task</th></tr></thead>
      <tbody>${o.items.map(n=>t`<tr key=${n.id} data-machine=${n.id}>
        <td><a href=${`/machines/${encodeURIComponent(n.id)}`}>${n.name}</a></td>
        <td><${Y} value=${n.status} /></td>
        <td>${n.cpu_cores} CPU, ${z(n.memory_mb)}, ${D(n.disk_gb)}</td>
        ${f&&t`<td data-location>${A(c,n.location_id)}</td>`}
        <td>${i[n.id]?t`<${Z} task=${i[n.id]} />`:n.task_id?t`<${Z} task=${{id:n.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&t`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>u(r.slice(0,-1))}>Previous</button>
      <button disabled=${!o.next_cursor} onClick=${()=>u([...r,o.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Re({onCreated:o,admin:s}){let[p,a]=b(null),r=N(K),u=N(Q),m=N(s?ie:null),[g,c]=b(!1),[f,v]=b(null),[i,n]=b("default"),{items:e,names:d}=F(!!s),M=s||e.length>1,w=u?.items||[],B=s||u&&w.length===0,V=f??(B?"":w[0]?.id||""),y=w.find($=>$.id===V),E=y?.allowed_templates?.length?new Set(y.allowed_templates):null,I=y?y.location_id||"default":i,j=r&&{...r,items:r.items.filter($=>(!E||E.has($.id))&&ce(I)($))},W=async $=>{$.preventDefault();let l=new FormData($.target),h={name:l.get("name"),template_id:l.get("template_id")};if(y)h.plan_id=y.id;else for(let _ of["cpu_cores","memory_mb","disk_gb"])l.get(_)&&(h[_]=Number(l.get(_)));!y&&i!=="default"&&(h.location_id=i),a(null);try{o(await C("POST",s?`${H}?tenant_id=${encodeURIComponent(l.get("tenant_id"))}`:H,h)),$.target.reset(),c(!1)}catch(_){a(_)}};if(!g)return t`<button class="primary" onClick=${()=>c(!0)}>New machine</button>`;let U=p?.fields?.plan_id;return t`<form class="card" onSubmit=${W} aria-label="New machine">
    <${P} error=${p||u?.error||m?.error} />
    <div class="grid">
      <${S} name="name" label="Name" error=${p} required />
      ${s&&t`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(m?.items||[]).map($=>t`<option value=${$.id}>${$.name}</option>`)}</select></label>`}
      ${w.length>0&&t`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${V} onChange=${$=>v($.target.value)} aria-invalid=${U?"true":void 0} aria-describedby=${U?"plan_id-error":void 0}>
          ${B&&t`<option value="">custom sizes</option>`}
          ${w.map($=>t`<option value=${$.id}>${$.name}: ${$.cpu_cores} CPU, ${z($.memory_mb)}, ${D($.disk_gb)}${M&&$.location_id&&$.location_id!=="default"?`, in ${A(d,$.location_id)}`:""}</option>`)}
        </select>${U&&t`<span class="field-error" id="plan_id-error">${U}</span>`}</label>`}
      ${M&&(y?t`<p class="muted" data-plan-location>Made in ${A(d,y.location_id)}, the plan's location</p>`:t`<${de} items=${e} error=${p} value=${i} onChange=${$=>n($.target.value)} />`)}
      <${ae} key=${`${V}@${I}`} templates=${j} error=${p} />
      ${y?t`<p class="muted" data-plan-sizes>${y.cpu_cores} CPU, ${z(y.memory_mb)}, ${D(y.disk_gb)} from the plan</p>`:B&&t`
          <${S} name="cpu_cores" label="CPU cores" error=${p} type="number" min="1" />
          <${S} name="memory_mb" label="Memory (MB)" error=${p} type="number" min="1" />
          <${S} name="disk_gb" label="Disk (GB)" error=${p} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>c(!1)}>Cancel</button>
  </form>`}export{Oe as a,ze as b,De as c,Ne as d,Ie as e,Ue as f,Ge as g,Le as h,Ye as i,Ae as j,Be as k,Ve as l,qe as m,Fe as n,He as o,je as p,ft as q,xt as r,Re as s};
