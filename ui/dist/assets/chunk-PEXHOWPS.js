import{a as G}from"./chunk-AX76OU66.js";import{b as K,c as V,d as le,e as ce}from"./chunk-5DRSVGIT.js";import{a as B,b as j}from"./chunk-MIMHD4HQ.js";import{b as ae}from"./chunk-YQSPOLJD.js";import{a as O,c as W,d as J,e as re,f as ie}from"./chunk-PBPSO6V7.js";import{a as x}from"./chunk-HOYY2OMK.js";import{a as h,b as E,l as S,n as D,o as z,p as Y,q as L,r as C,s as w,t as ne,u as P}from"./chunk-E4PU34WH.js";import{g as e}from"./chunk-XGWGEZEQ.js";var k=o=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${o} /></svg>`,Ee=k("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),De=k("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),ze=k("M3 4h18v4H3zM5 8v12h14V8M10 12h4"),Oe=k("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Ne=k("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),ee=k("M7 4l13 8-13 8z"),Q=k("M6 6h12v12H6z"),de=k("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Ie=k("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Ue=k("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Ge=k("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ye=k("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Le=k("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),Ae=k("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Be=k("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Ve=k("M3 12h4l3-7 4 14 3-7h4"),qe=k("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"),Fe=k("M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z"),He=k("M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),je=k("M6 9l6 6 6-6");function pe(o,t){let[d,a]=h(null),[i,u]=h(null);return E(()=>{let m=!0;return S("GET",o).then(g=>{m&&(a(g),u(null))},g=>m&&u(g)),()=>{m=!1}},[o,t]),[d,i]}function ue({at:o,act:t,ended:d}){let[a,i]=h(0),[u,m]=pe(o("/backups?limit=100"),`${d}/${a}`),[g,l]=h(null),[r,p]=h(!0),n=async s=>{l(null);try{return await s(),!0}catch(f){return l(f),!1}};return e`<${P} id="backups-part" title="Backups">
    <${C} error=${g||m} />
    <form class="inline-form" onSubmit=${async s=>{s.preventDefault();let f=new FormData(s.target),M={mode:f.get("mode")};f.get("note")&&(M.note=f.get("note")),await n(()=>t("POST","/backups",M))&&s.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${w} name="note" label="Note (optional)" error=${g} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${r} onChange=${s=>p(s.target.checked)} /> Start the machine after a restore</label>
    ${u&&(u.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${u.items.map(s=>e`<tr key=${s.id} data-backup=${s.id}>
        <td>${Y(s.created_at)}</td><td>${ne(s.size_bytes)}</td><td>${s.mode}</td><td>${s.origin}</td><td>${s.note||""}</td>
        <td><${x} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>n(()=>t("POST",`/backups/${encodeURIComponent(s.id)}/restore`,{start_after:r}))} />
          <${x} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?"
          onYes=${()=>n(()=>S("DELETE",`/api/resources/backups/${encodeURIComponent(s.id)}`)).then(f=>f&&i(M=>M+1))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function me({m:o,at:t,act:d,ended:a}){let[i,u]=pe(t("/snapshots?limit=200"),a),[m,g]=h(null),l=async n=>{g(null);try{return await n(),!0}catch(v){return g(v),!1}},r=async n=>{n.preventDefault();let v=new FormData(n.target),s={name:v.get("name")};v.get("description")&&(s.description=v.get("description")),v.get("include_memory")&&(s.include_memory=!0),await l(()=>d("POST","/snapshots",s))&&n.target.reset()},p=n=>`/snapshots/${encodeURIComponent(n.name)}`;return e`<${P} id="snapshots-part" title="Snapshots">
    <${C} error=${m||u} />
    <form class="inline-form" onSubmit=${r} aria-label="Take a snapshot">
      <${w} name="name" label="Name" error=${m} required />
      <${w} name="description" label="Description (optional)" error=${m} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${o.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(n=>e`<tr key=${n.name} data-snapshot=${n.name}>
        <td>${n.name}</td><td>${Y(n.created_at)}</td><td>${n.includes_memory?"yes":"no"}</td><td>${n.description||""}</td>
        <td class="row-actions">
          <${x} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${n.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>d("POST",`${p(n)}/rollback`))} />
          <${x} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${n.name}?`}
            onYes=${()=>l(()=>d("DELETE",p(n)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function $e({m:o,base:t,onMachine:d}){let[a,i]=h(null),[u,m]=h(""),g=s=>`${t}/addresses/${encodeURIComponent(s.address)}`,l=async s=>{i(null);try{let f=await s();return f&&f.id&&d(f),!0}catch(f){return i(f),!1}},r=async(s,f)=>{s.preventDefault();let M=new FormData(s.target).get("ptr").trim();await l(()=>S("PUT",`${g(f)}/ptr`,{ptr:M}))&&m("")},p=async s=>{s.preventDefault();let f=new FormData(s.target),M={version:Number(f.get("version"))};f.get("address")&&(M.address=f.get("address").trim()),await l(()=>S("POST",`${t}/addresses`,M))&&s.target.reset()},n=o.addresses||[],v=n[0];return e`<${P} id="addresses-part" title="Addresses">
    <${C} error=${a} />
    ${n.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${n.map(s=>e`<tr key=${s.address} data-address=${s.address}>
        <td>${s.address}/${s.prefix}${s===v?" (primary)":""}</td><td>${s.gateway||""}</td>
        <td>${u===s.address?e`<form class="inline-form" onSubmit=${f=>r(f,s)} aria-label=${`Reverse DNS name of ${s.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${s.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>m("")}>Cancel</button></form>`:e`<span data-ptr>${s.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${u!==s.address&&e`<button type="button" data-edit-ptr onClick=${()=>m(s.address)}>Edit reverse DNS</button>`}
          ${s!==v&&e`<${x} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${s.address} back to its pool? The machine stops using it.`}
            onYes=${()=>l(()=>S("DELETE",g(s)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${p} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function se(){let[o,t]=h(null);return[o,async a=>{t(null);try{return await a(),!0}catch(i){return t(i),!1}}]}function be({m:o,act:t}){let d=O(ie),[a,i]=se(),[u,m]=h(""),g=(d?.items||[]).filter(l=>l.status==="ready");return e`<${P} id="media-part" title="ISO and rescue">
    <${C} error=${a||d?.error} />
    <p>In the CD-ROM drive: <strong data-media>${o.media?o.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${u} onChange=${l=>m(l.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${d?g.length?"choose an image":"no image is ready":"loading…"}</option>
          ${g.map(l=>e`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!u||o.rescue} onClick=${()=>i(()=>t("POST","/media",{iso_id:u}))}>Mount</button>
      <button type="button" disabled=${!o.media||o.rescue} onClick=${()=>i(()=>t("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${o.rescue?"on":"off"}</strong>.</p>
    ${o.rescue?e`<${x} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>t("POST","/rescue",{enabled:!1}))} />`:e`<${x} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>t("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function he({m:o,act:t}){let d=O(W),[a,i]=se(),[u,m]=h(null),g=r=>{r.preventDefault(),m(r.target)},l=async()=>{let r=new FormData(u),p={template_id:r.get("template_id")};r.get("password")&&(p.password=r.get("password"));let n=String(r.get("ssh_keys")||"").split(`
`).map(v=>v.trim()).filter(Boolean);n.length&&(p.ssh_keys=n),await i(()=>t("POST","/reinstall",p))&&u.reset(),m(null)};return e`<${P} id="reinstall-part" title="Reinstall">
    <${C} error=${a||d?.error} />
    <form onSubmit=${g} aria-label="Reinstall">
      <div class="grid">
        <${oe} templates=${d} error=${a} value=${o.template_id} />
        <${w} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${u?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${r=>r?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>m(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function oe({templates:o,error:t,value:d}){let a=t?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!o&&e`<option value="">loading…</option>`}
      ${(o?.items||[]).map(i=>e`<option value=${i.id} selected=${i.id===d}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&e`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var te=o=>t=>{t&&!t.dataset.filled&&(t.value=o,t.dataset.filled="1")};function fe({m:o,act:t}){let d=O(J),[a,i]=se(),[u,m]=h(""),g=async l=>{l.preventDefault();let r=new FormData(l.target),p={};for(let n of["cpu_cores","memory_mb","disk_gb"]){let v=Number(r.get(n));r.get(n)&&v!==o[n]&&(p[n]=v)}Object.keys(p).length&&await i(()=>t("PATCH","/resources",p))};return e`<${P} id="resize-part" title="Resize">
    <${C} error=${a||d?.error} />
    ${d?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${u} onChange=${l=>m(l.target.value)}>
        <option value="">choose a plan</option>
        ${d.items.map(l=>e`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${D(l.memory_mb)}, ${z(l.disk_gb)}${l.id===o.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!u} onClick=${()=>i(()=>t("POST","/plan",{plan_id:u}))}>Move to plan</button>
    </div>`}
    <form key=${`${o.cpu_cores}/${o.memory_mb}/${o.disk_gb}`} onSubmit=${g} aria-label="Resize">
      <div class="grid">
        <${w} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${te(o.cpu_cores)} />
        <${w} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${te(o.memory_mb)} />
        <${w} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${o.disk_gb} inputRef=${te(o.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var ye=G(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),ke=G(()=>import("./terminal-BSGQFQT7.js"),"Console"),_e=G(()=>import("./vnc-7YJN2TCX.js"),"VNC"),Me=G(()=>import("./machine-manage-QJLJM56E.js"),"Manage"),we=G(()=>import("./machine-manage-QJLJM56E.js"),"Operate"),Se=G(()=>import("./usage-GSX4N36M.js"),"Usage"),q="/api/client/machines";function X({task:o}){if(!o)return null;let t=B.value[o.id]||o;return e`<span class="task" aria-live="polite">${t.type}: <${L} value=${t.status} />${t.error?e` <span class="field-error">${t.error}</span>`:""}</span>`}var Ce=[["start","Start",ee],["stop","Stop",Q],["shutdown","Shut down",Q],["reboot","Reboot",de],["suspend","Suspend",Q],["resume","Resume",ee]],Pe=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["usage","Usage"],["manage","Name and deletion"],["operate","Operator"],["tasks","Tasks"]],xe=(o,t)=>d=>{let a=`${o}${d}`;return t?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(t)}`:a};function ft({id:o,admin:t,tenant:d}){let[a,i]=h(null),[u,m]=h([]),[g,l]=h(null),[r,p]=h(null),[n,v]=h(0),[s,f]=h(!1),[M,N]=h(!1),{names:A}=K(!!t),y=`${q}/${encodeURIComponent(o)}`,R=`/api/virt/vms/${encodeURIComponent(o)}`,I=xe(y,t?d:""),F=()=>S("GET",I("")).then(c=>{i(c),c.last_task&&p(b=>b||c.last_task)},l);E(()=>{i(null),p(null),l(null),f(!1),N(!1),F(),S("GET",I("/tasks?limit=20")).then(c=>m(c.items),()=>{})},[o,d]),E(()=>j((c,b)=>{c==="machine.updated"&&b.id===o&&i(_=>_&&{..._,...b}),c==="task.updated"&&b.target_id===o&&(m(_=>_.some(T=>T.id===b.id)?_.map(T=>T.id===b.id?b:T):[b,..._]),(b.status==="succeeded"||b.status==="failed")&&(v(_=>_+1),F()))}),[o]);let H=async(c,b,_)=>{let T=await S(c,b.startsWith("/api/")?b:I(b),_);return p(T.task),m(Z=>Z.some(ge=>ge.id===T.task.id)?Z:[T.task,...Z]),T.task},U=async c=>{l(null);try{await H("POST",`/actions/${c}`)}catch(b){l(b)}},$={m:a,at:I,act:H,ended:n};return e`<main id="main">
    <p><a href=${t?"/admin/machines":"/machines"}>← Machines</a></p>
    <${C} error=${g} />
    ${a&&e`<h1>${a.name} <${L} value=${a.status} />${a.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Pe.filter(([c])=>(c!=="vnc"||a.display)&&(c!=="operate"||t)).map(([c,b])=>e`<li><a href=${`#${c}`}>${b}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${Ce.map(([c,b,_])=>e`<button onClick=${()=>U(c)} data-action=${c}><${_} />${b}</button>`)}
        <${x} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${()=>U("reset")} />
      </div>
      ${r&&e`<p>Last action: <${X} task=${r} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${D(a.memory_mb)} memory, ${z(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        ${t&&e`<dt>Location</dt><dd data-location>${V(A,a.location_id)}</dd>`}
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(c=>c.ip_addresses||[]).join(", ")||(a.addresses||[]).map(c=>c.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${Y(a.created_at)}</dd>
      </dl>
      <div id="addresses"><${$e} m=${a} base=${t?R:y} onMachine=${c=>i(b=>({...b,...c}))} /></div>
      <div id="graphs"><${P} id="graphs-part" title="Graphs"><${ye} url=${`${t?R:y}/usage-graphs`} /><//></div>
      <div id="console"><${P} id="console-part" title="Serial console">
        ${s?e`<${ke} url=${`${t?R:y}/console`} /><button type="button" onClick=${()=>f(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>f(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&e`<div id="vnc"><${P} id="vnc-part" title="Graphical console (VNC)">
        ${M?e`<${_e} url=${`${t?R:y}/console`} /><button type="button" onClick=${()=>N(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>N(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${ue} ...${$} /></div>
      <div id="snapshots"><${me} ...${$} /></div>
      <div id="media"><${be} ...${$} /></div>
      <div id="reinstall"><${he} ...${$} /></div>
      <div id="resize"><${fe} ...${$} /></div>
      <div id="usage"><${Se} path=${t?`${R}/usage`:`${y}/usage`} /></div>
      <div id="manage"><${Me} ...${$} onGone=${()=>ae(t?"/admin/machines":"/machines")} /></div>
      ${t&&e`<div id="operate"><${we} ...${$} onMachine=${c=>i(b=>({...b,...c}))} /></div>`}
      <div id="tasks"><${P} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${u.map(c=>B.value[c.id]||c).map(c=>e`<tr key=${c.id}><td>${c.type}</td><td><${L} value=${c.status} /></td><td>${Y(c.created_at)}</td><td>${c.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function xt(){let[o,t]=h(null),[d,a]=h(null),[i,u]=h([""]),m=i[i.length-1];E(()=>{let r=!0;return S("GET",`${q}?limit=50${m?`&cursor=${encodeURIComponent(m)}`:""}`).then(p=>r&&t(p),p=>r&&a(p)),()=>{r=!1}},[m]),E(()=>j((r,p)=>{r!=="machine.updated"&&r!=="machine.deleted"||t(n=>{if(!n)return n;let v=n.items.findIndex(s=>s.id===p.id);return r==="machine.deleted"?v<0?n:{...n,items:n.items.filter(s=>s.id!==p.id)}:v>=0?{...n,items:n.items.map(s=>s.id===p.id?{...s,...p}:s)}:i.length===1?{...n,items:[p,...n.items]}:n})}),[i.length]);let g=r=>t(p=>p&&!p.items.some(n=>n.id===r.machine.id)?{...p,items:[{...r.machine,task_id:r.task.id},...p.items]}:p),l={};for(let r of Object.values(B.value)){let p=l[r.target_id];(!p||p.created_at<r.created_at)&&(l[r.target_id]=r)}return e`<main id="main">
    <h1>Machines</h1>
    <${C} error=${d} />
    <${Te} onCreated=${g} />
    ${o&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${o.items.map(r=>e`<tr key=${r.id} data-machine=${r.id}>
        <td><a href=${`/machines/${encodeURIComponent(r.id)}`}>${r.name}</a></td>
        <td><${L} value=${r.status} /></td>
        <td>${r.cpu_cores} CPU, ${D(r.memory_mb)}, ${z(r.disk_gb)}</td>
        <td>${l[r.id]?e`<${X} task=${l[r.id]} />`:r.task_id?e`<${X} task=${{id:r.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>u(i.slice(0,-1))}>Previous</button>
      <button disabled=${!o.next_cursor} onClick=${()=>u([...i,o.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Te({onCreated:o,admin:t}){let[d,a]=h(null),i=O(W),u=O(J),m=O(t?re:null),[g,l]=h(!1),[r,p]=h(null),[n,v]=h("default"),{items:s,names:f}=K(!!t),M=u?.items||[],N=t||u&&M.length===0,A=r??(N?"":M[0]?.id||""),y=M.find($=>$.id===A),R=y?.allowed_templates?.length?new Set(y.allowed_templates):null,I=y?y.location_id||"default":n,F=i&&{...i,items:i.items.filter($=>(!R||R.has($.id))&&le(I)($))},H=async $=>{$.preventDefault();let c=new FormData($.target),b={name:c.get("name"),template_id:c.get("template_id")};if(y)b.plan_id=y.id;else for(let _ of["cpu_cores","memory_mb","disk_gb"])c.get(_)&&(b[_]=Number(c.get(_)));!y&&n!=="default"&&(b.location_id=n),a(null);try{o(await S("POST",t?`${q}?tenant_id=${encodeURIComponent(c.get("tenant_id"))}`:q,b)),$.target.reset(),l(!1)}catch(_){a(_)}};if(!g)return e`<button class="primary" onClick=${()=>l(!0)}>New machine</button>`;let U=d?.fields?.plan_id;return e`<form class="card" onSubmit=${H} aria-label="New machine">
    <${C} error=${d||u?.error||m?.error} />
    <div class="grid">
      <${w} name="name" label="Name" error=${d} required />
      ${t&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(m?.items||[]).map($=>e`<option value=${$.id}>${$.name}</option>`)}</select></label>`}
      ${M.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${A} onChange=${$=>p($.target.value)} aria-invalid=${U?"true":void 0} aria-describedby=${U?"plan_id-error":void 0}>
          ${N&&e`<option value="">custom sizes</option>`}
          ${M.map($=>e`<option value=${$.id}>${$.name}: ${$.cpu_cores} CPU, ${D($.memory_mb)}, ${z($.disk_gb)}${t&&$.location_id&&$.location_id!=="default"?`, in ${V(f,$.location_id)}`:""}</option>`)}
        </select>${U&&e`<span class="field-error" id="plan_id-error">${U}</span>`}</label>`}
      ${t&&(y?e`<p class="muted" data-plan-location>Made in ${V(f,y.location_id)}, the plan's location</p>`:e`<${ce} items=${s} error=${d} value=${n} onChange=${$=>v($.target.value)} />`)}
      <${oe} key=${`${A}@${I}`} templates=${F} error=${d} />
      ${y?e`<p class="muted" data-plan-sizes>${y.cpu_cores} CPU, ${D(y.memory_mb)}, ${z(y.disk_gb)} from the plan</p>`:N&&e`
          <${w} name="cpu_cores" label="CPU cores" error=${d} type="number" min="1" />
          <${w} name="memory_mb" label="Memory (MB)" error=${d} type="number" min="1" />
          <${w} name="disk_gb" label="Disk (GB)" error=${d} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
  </form>`}export{Ee as a,De as b,ze as c,Oe as d,Ne as e,Ie as f,Ue as g,Ge as h,Ye as i,Le as j,Ae as k,Be as l,Ve as m,qe as n,Fe as o,He as p,je as q,ft as r,xt as s,Te as t};
