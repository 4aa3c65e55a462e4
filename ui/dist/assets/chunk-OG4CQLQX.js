import{a as V,b as W}from"./chunk-NOVTYDXA.js";import{c as A,d as ie,e as le,f as F}from"./chunk-DPDHYRQP.js";import{a as z,c as J,d as K,e as ne,f as re}from"./chunk-2POUUWF6.js";import{a as Q}from"./chunk-FERSF4KL.js";import{a as N}from"./chunk-HQUNSCRM.js";import{a as b,b as R,k as x,m as E,n as O,o as L,p as G,q as S,r as w,s as ae,t as C}from"./chunk-GBUNNUYN.js";import{g as e}from"./chunk-XGWGEZEQ.js";var M=o=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${o} /></svg>`,xe=M("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Te=M("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),ce=M("M7 4l13 8-13 8z"),ee=M("M6 6h12v12H6z"),de=M("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Re=M("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Ee=M("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Oe=M("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ne=M("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),ze=M("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),De=M("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Ie=M("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Ue=M("M3 12h4l3-7 4 14 3-7h4"),Le=M("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01"),Ge=M("M12 3v5M12 16v5M3 12h5M16 12h5M9 9h6v6H9z"),Ae=M("M12 21s-7-6.5-7-12a7 7 0 0 1 14 0c0 5.5-7 12-7 12zM12 11a2 2 0 1 0 0-4 2 2 0 0 0 0 4z");function pe(o,n){let[d,t]=b(null),[i,m]=b(null);return R(()=>{let u=!0;return x("GET",o).then(g=>{u&&(t(g),m(null))},g=>u&&m(g)),()=>{u=!1}},[o,n]),[d,i]}function ue({at:o,act:n,ended:d}){let[t,i]=pe(o("/backups?limit=100"),d),[m,u]=b(null),[g,l]=b(!0),h=async s=>{u(null);try{return await s(),!0}catch(r){return u(r),!1}};return e`<${C} id="backups-part" title="Backups">
    <${S} error=${m||i} />
    <form class="inline-form" onSubmit=${async s=>{s.preventDefault();let r=new FormData(s.target),a={mode:r.get("mode")};r.get("note")&&(a.note=r.get("note")),await h(()=>n("POST","/backups",a))&&s.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${w} name="note" label="Note (optional)" error=${m} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${g} onChange=${s=>l(s.target.checked)} /> Start the machine after a restore</label>
    ${t&&(t.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(s=>e`<tr key=${s.id} data-backup=${s.id}>
        <td>${L(s.created_at)}</td><td>${ae(s.size_bytes)}</td><td>${s.mode}</td><td>${s.origin}</td><td>${s.note||""}</td>
        <td><${N} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>h(()=>n("POST",`/backups/${encodeURIComponent(s.id)}/restore`,{start_after:g}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function me({m:o,at:n,act:d,ended:t}){let[i,m]=pe(n("/snapshots?limit=200"),t),[u,g]=b(null),l=async s=>{g(null);try{return await s(),!0}catch(r){return g(r),!1}},h=async s=>{s.preventDefault();let r=new FormData(s.target),a={name:r.get("name")};r.get("description")&&(a.description=r.get("description")),r.get("include_memory")&&(a.include_memory=!0),await l(()=>d("POST","/snapshots",a))&&s.target.reset()},v=s=>`/snapshots/${encodeURIComponent(s.name)}`;return e`<${C} id="snapshots-part" title="Snapshots">
    <${S} error=${u||m} />
    <form class="inline-form" onSubmit=${h} aria-label="Take a snapshot">
      <${w} name="name" label="Name" error=${u} required />
      <${w} name="description" label="Description (optional)" error=${u} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${o.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(s=>e`<tr key=${s.name} data-snapshot=${s.name}>
        <td>${s.name}</td><td>${L(s.created_at)}</td><td>${s.includes_memory?"yes":"no"}</td><td>${s.description||""}</td>
        <td class="row-actions">
          <${N} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${s.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>d("POST",`${v(s)}/rollback`))} />
          <${N} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${s.name}?`}
            onYes=${()=>l(()=>d("DELETE",v(s)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function $e({m:o,base:n,onMachine:d}){let[t,i]=b(null),[m,u]=b(""),g=a=>`${n}/addresses/${encodeURIComponent(a.address)}`,l=async a=>{i(null);try{let p=await a();return p&&p.id&&d(p),!0}catch(p){return i(p),!1}},h=async(a,p)=>{a.preventDefault();let P=new FormData(a.target).get("ptr").trim();await l(()=>x("PUT",`${g(p)}/ptr`,{ptr:P}))&&u("")},v=async a=>{a.preventDefault();let p=new FormData(a.target),P={version:Number(p.get("version"))};p.get("address")&&(P.address=p.get("address").trim()),await l(()=>x("POST",`${n}/addresses`,P))&&a.target.reset()},s=o.addresses||[],r=s[0];return e`<${C} id="addresses-part" title="Addresses">
    <${S} error=${t} />
    ${s.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${s.map(a=>e`<tr key=${a.address} data-address=${a.address}>
        <td>${a.address}/${a.prefix}${a===r?" (primary)":""}</td><td>${a.gateway||""}</td>
        <td>${m===a.address?e`<form class="inline-form" onSubmit=${p=>h(p,a)} aria-label=${`Reverse DNS name of ${a.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${a.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>u("")}>Cancel</button></form>`:e`<span data-ptr>${a.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${m!==a.address&&e`<button type="button" data-edit-ptr onClick=${()=>u(a.address)}>Edit reverse DNS</button>`}
          ${a!==r&&e`<${N} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${a.address} back to its pool? The machine stops using it.`}
            onYes=${()=>l(()=>x("DELETE",g(a)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${v} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function se(){let[o,n]=b(null);return[o,async t=>{n(null);try{return await t(),!0}catch(i){return n(i),!1}}]}function be({m:o,act:n}){let d=z(re),[t,i]=se(),[m,u]=b(""),g=(d?.items||[]).filter(l=>l.status==="ready");return e`<${C} id="media-part" title="ISO and rescue">
    <${S} error=${t||d?.error} />
    <p>In the CD-ROM drive: <strong data-media>${o.media?o.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${l=>u(l.target.value)} aria-describedby=${t?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${d?g.length?"choose an image":"no image is ready":"loading…"}</option>
          ${g.map(l=>e`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${t?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${t.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||o.rescue} onClick=${()=>i(()=>n("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!o.media||o.rescue} onClick=${()=>i(()=>n("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${o.rescue?"on":"off"}</strong>.</p>
    ${o.rescue?e`<${N} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!1}))} />`:e`<${N} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function he({m:o,act:n}){let d=z(J),[t,i]=se(),[m,u]=b(null),g=h=>{h.preventDefault(),u(h.target)},l=async()=>{let h=new FormData(m),v={template_id:h.get("template_id")};h.get("password")&&(v.password=h.get("password"));let s=String(h.get("ssh_keys")||"").split(`
`).map(r=>r.trim()).filter(Boolean);s.length&&(v.ssh_keys=s),await i(()=>n("POST","/reinstall",v))&&m.reset(),u(null)};return e`<${C} id="reinstall-part" title="Reinstall">
    <${S} error=${t||d?.error} />
    <form onSubmit=${g} aria-label="Reinstall">
      <div class="grid">
        <${oe} templates=${d} error=${t} value=${o.template_id} />
        <${w} name="password" label="New root password (optional)" error=${t} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${h=>h?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>u(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function oe({templates:o,error:n,value:d}){let t=n?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${t?"true":void 0} aria-describedby=${t?"template_id-error":void 0}>
      ${!o&&e`<option value="">loading…</option>`}
      ${(o?.items||[]).map(i=>e`<option value=${i.id} selected=${i.id===d}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${t&&e`<span class="field-error" id="template_id-error">${t}</span>`}
  </label>`}var te=o=>n=>{n&&!n.dataset.filled&&(n.value=o,n.dataset.filled="1")};function fe({m:o,act:n}){let d=z(K),[t,i]=se(),[m,u]=b(""),g=async l=>{l.preventDefault();let h=new FormData(l.target),v={};for(let s of["cpu_cores","memory_mb","disk_gb"]){let r=Number(h.get(s));h.get(s)&&r!==o[s]&&(v[s]=r)}Object.keys(v).length&&await i(()=>n("PATCH","/resources",v))};return e`<${C} id="resize-part" title="Resize">
    <${S} error=${t||d?.error} />
    ${d?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${l=>u(l.target.value)}>
        <option value="">choose a plan</option>
        ${d.items.map(l=>e`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${E(l.memory_mb)}, ${O(l.disk_gb)}${l.id===o.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>i(()=>n("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${o.cpu_cores}/${o.memory_mb}/${o.disk_gb}`} onSubmit=${g} aria-label="Resize">
      <div class="grid">
        <${w} name="cpu_cores" label="CPU cores" error=${t} type="number" min="1" inputRef=${te(o.cpu_cores)} />
        <${w} name="memory_mb" label="Memory (MB)" error=${t} type="number" min="1" inputRef=${te(o.memory_mb)} />
        <${w} name="disk_gb" label="Disk (GB, only grows)" error=${t} type="number" min=${o.disk_gb} inputRef=${te(o.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var ye=Q(()=>import("./graphs-RZSIVX7B.js"),"Graphs"),ke=Q(()=>import("./terminal-JIQ4ENQA.js"),"Console"),_e=Q(()=>import("./vnc-OOEFTFVU.js"),"VNC"),q="/api/client/machines";function X({task:o}){if(!o)return null;let n=V.value[o.id]||o;return e`<span class="task" aria-live="polite">${n.type}: <${G} value=${n.status} />${n.error?e` <span class="field-error">${n.error}</span>`:""}</span>`}var Me=[["start","Start",ce],["stop","Stop",ee],["shutdown","Shut down",ee],["reboot","Reboot",de]],we=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],Se=(o,n)=>d=>{let t=`${o}${d}`;return n?`${t}${t.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(n)}`:t};function lt({id:o,admin:n,tenant:d}){let[t,i]=b(null),[m,u]=b([]),[g,l]=b(null),[h,v]=b(null),[s,r]=b(0),[a,p]=b(!1),[P,_]=b(!1),{items:B,names:Y}=F(!!n),y=`${q}/${encodeURIComponent(o)}`,D=`/api/virt/vms/${encodeURIComponent(o)}`,I=Se(y,n?d:""),j=()=>x("GET",I("")).then(c=>{i(c),c.last_task&&v(f=>f||c.last_task)},l);R(()=>{i(null),v(null),l(null),p(!1),_(!1),j(),x("GET",I("/tasks?limit=20")).then(c=>u(c.items),()=>{})},[o,d]),R(()=>W((c,f)=>{c==="machine.updated"&&f.id===o&&i(k=>k&&{...k,...f}),c==="task.updated"&&f.target_id===o&&(u(k=>k.some(T=>T.id===f.id)?k.map(T=>T.id===f.id?f:T):[f,...k]),(f.status==="succeeded"||f.status==="failed")&&(r(k=>k+1),j()))}),[o]);let H=async(c,f,k)=>{let T=await x(c,I(f),k);return v(T.task),u(Z=>Z.some(ge=>ge.id===T.task.id)?Z:[T.task,...Z]),T.task},U=async c=>{l(null);try{await H("POST",`/actions/${c}`)}catch(f){l(f)}},$={m:t,at:I,act:H,ended:s};return e`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${S} error=${g} />
    ${t&&e`<h1>${t.name} <${G} value=${t.status} />${t.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${we.filter(([c])=>c!=="vnc"||t.display).map(([c,f])=>e`<li><a href=${`#${c}`}>${f}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${Me.map(([c,f,k])=>e`<button onClick=${()=>U(c)} data-action=${c}><${k} />${f}</button>`)}
      </div>
      ${h&&e`<p>Last action: <${X} task=${h} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${t.cpu_cores} CPU, ${E(t.memory_mb)} memory, ${O(t.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${t.template_id}</dd>
        <dt>Node</dt><dd>${t.node}</dd>
        ${(n||B.length>1)&&e`<dt>Location</dt><dd data-location>${A(Y,t.location_id)}</dd>`}
        <dt>Addresses</dt><dd>${(t.interfaces||[]).flatMap(c=>c.ip_addresses||[]).join(", ")||(t.addresses||[]).map(c=>c.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${t.media?t.media.name:"none"}</dd>
        <dt>Created</dt><dd>${L(t.created_at)}</dd>
      </dl>
      <div id="addresses"><${$e} m=${t} base=${n?D:y} onMachine=${c=>i(f=>({...f,...c}))} /></div>
      <div id="graphs"><${C} id="graphs-part" title="Graphs"><${ye} url=${`${n?D:y}/usage-graphs`} /><//></div>
      <div id="console"><${C} id="console-part" title="Serial console">
        ${a?e`<${ke} url=${`${n?D:y}/console`} /><button type="button" onClick=${()=>p(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>p(!0)}>Open console</button>`}
      <//></div>
      ${t.display&&e`<div id="vnc"><${C} id="vnc-part" title="Graphical console (VNC)">
        ${P?e`<${_e} url=${`${n?D:y}/console`} /><button type="button" onClick=${()=>_(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>_(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${ue} ...${$} /></div>
      <div id="snapshots"><${me} ...${$} /></div>
      <div id="media"><${be} ...${$} /></div>
      <div id="reinstall"><${he} ...${$} /></div>
      <div id="resize"><${fe} ...${$} /></div>
      <div id="tasks"><${C} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(c=>V.value[c.id]||c).map(c=>e`<tr key=${c.id}><td>${c.type}</td><td><${G} value=${c.status} /></td><td>${L(c.created_at)}</td><td>${c.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function vt(){let[o,n]=b(null),[d,t]=b(null),[i,m]=b([""]),u=i[i.length-1],{items:g,names:l}=F(!1),h=g.length>1;R(()=>{let r=!0;return x("GET",`${q}?limit=50${u?`&cursor=${encodeURIComponent(u)}`:""}`).then(a=>r&&n(a),a=>r&&t(a)),()=>{r=!1}},[u]),R(()=>W((r,a)=>{r!=="machine.updated"&&r!=="machine.deleted"||n(p=>{if(!p)return p;let P=p.items.findIndex(_=>_.id===a.id);return r==="machine.deleted"?P<0?p:{...p,items:p.items.filter(_=>_.id!==a.id)}:P>=0?{...p,items:p.items.map(_=>_.id===a.id?{..._,...a}:_)}:i.length===1?{...p,items:[a,...p.items]}:p})}),[i.length]);let v=r=>n(a=>a&&!a.items.some(p=>p.id===r.machine.id)?{...a,items:[{...r.machine,task_id:r.task.id},...a.items]}:a),s={};for(let r of Object.values(V.value)){let a=s[r.target_id];(!a||a.created_at<r.created_at)&&(s[r.target_id]=r)}return e`<main id="main">
    <h1>Machines</h1>
    <${S} error=${d} />
    <${Ce} onCreated=${v} />
    ${o&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th>${h&&e`<th scope="col">Location</th>`}<th scope="col">Task</th></tr></thead>
      <tbody>${o.items.map(r=>e`<tr key=${r.id} data-machine=${r.id}>
        <td><a href=${`/machines/${encodeURIComponent(r.id)}`}>${r.name}</a></td>
        <td><${G} value=${r.status} /></td>
        <td>${r.cpu_cores} CPU, ${E(r.memory_mb)}, ${O(r.disk_gb)}</td>
        ${h&&e`<td data-location>${A(l,r.location_id)}</td>`}
        <td>${s[r.id]?e`<${X} task=${s[r.id]} />`:r.task_id?e`<${X} task=${{id:r.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${o.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>m(i.slice(0,-1))}>Previous</button>
      <button disabled=${!o.next_cursor} onClick=${()=>m([...i,o.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Ce({onCreated:o,admin:n}){let[d,t]=b(null),i=z(J),m=z(K),u=z(n?ne:null),[g,l]=b(!1),[h,v]=b(null),[s,r]=b("default"),{items:a,names:p}=F(!!n),P=n||a.length>1,_=m?.items||[],B=n||m&&_.length===0,Y=h??(B?"":_[0]?.id||""),y=_.find($=>$.id===Y),D=y?.allowed_templates?.length?new Set(y.allowed_templates):null,I=y?y.location_id||"default":s,j=i&&{...i,items:i.items.filter($=>(!D||D.has($.id))&&ie(I)($))},H=async $=>{$.preventDefault();let c=new FormData($.target),f={name:c.get("name"),template_id:c.get("template_id")};if(y)f.plan_id=y.id;else for(let k of["cpu_cores","memory_mb","disk_gb"])c.get(k)&&(f[k]=Number(c.get(k)));!y&&s!=="default"&&(f.location_id=s),t(null);try{o(await x("POST",n?`${q}?tenant_id=${encodeURIComponent(c.get("tenant_id"))}`:q,f)),$.target.reset(),l(!1)}catch(k){t(k)}};if(!g)return e`<button class="primary" onClick=${()=>l(!0)}>New machine</button>`;let U=d?.fields?.plan_id;return e`<form class="card" onSubmit=${H} aria-label="New machine">
    <${S} error=${d||m?.error||u?.error} />
    <div class="grid">
      <${w} name="name" label="Name" error=${d} required />
      ${n&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(u?.items||[]).map($=>e`<option value=${$.id}>${$.name}</option>`)}</select></label>`}
      ${_.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${Y} onChange=${$=>v($.target.value)} aria-invalid=${U?"true":void 0} aria-describedby=${U?"plan_id-error":void 0}>
          ${B&&e`<option value="">custom sizes</option>`}
          ${_.map($=>e`<option value=${$.id}>${$.name}: ${$.cpu_cores} CPU, ${E($.memory_mb)}, ${O($.disk_gb)}${P&&$.location_id&&$.location_id!=="default"?`, in ${A(p,$.location_id)}`:""}</option>`)}
        </select>${U&&e`<span class="field-error" id="plan_id-error">${U}</span>`}</label>`}
      ${P&&(y?e`<p class="muted" data-plan-location>Made in ${A(p,y.location_id)}, the plan's location</p>`:e`<${le} items=${a} error=${d} value=${s} onChange=${$=>r($.target.value)} />`)}
      <${oe} key=${`${Y}@${I}`} templates=${j} error=${d} />
      ${y?e`<p class="muted" data-plan-sizes>${y.cpu_cores} CPU, ${E(y.memory_mb)}, ${O(y.disk_gb)} from the plan</p>`:B&&e`
          <${w} name="cpu_cores" label="CPU cores" error=${d} type="number" min="1" />
          <${w} name="memory_mb" label="Memory (MB)" error=${d} type="number" min="1" />
          <${w} name="disk_gb" label="Disk (GB)" error=${d} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
  </form>`}export{xe as a,Te as b,Re as c,Ee as d,Oe as e,Ne as f,ze as g,De as h,Ie as i,Ue as j,Le as k,Ge as l,Ae as m,lt as n,vt as o,Ce as p};
