import{a as V,b as q}from"./chunk-MIMHD4HQ.js";import{a as z,c as L,d as j,e as te,f as se}from"./chunk-ZZQYSPDV.js";import{a as H}from"./chunk-AX76OU66.js";import{a as O}from"./chunk-HOYY2OMK.js";import{a as b,b as R,l as w,n as E,o as D,p as B,q as G,r as _,s as k,t as ee,u as S}from"./chunk-E4PU34WH.js";import{g as t}from"./chunk-XGWGEZEQ.js";var v=s=>()=>t`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${s} /></svg>`,_e=v("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Se=v("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),Me=v("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),we=v("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),ae=v("M7 4l13 8-13 8z"),K=v("M6 6h12v12H6z"),oe=v("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Ce=v("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Pe=v("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),xe=v("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Te=v("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Re=v("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),Ee=v("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),De=v("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Oe=v("M3 12h4l3-7 4 14 3-7h4"),ze=v("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01");function ne(s,n){let[d,a]=b(null),[i,m]=b(null);return R(()=>{let u=!0;return w("GET",s).then(f=>{u&&(a(f),m(null))},f=>u&&m(f)),()=>{u=!1}},[s,n]),[d,i]}function re({at:s,act:n,ended:d}){let[a,i]=ne(s("/backups?limit=100"),d),[m,u]=b(null),[f,l]=b(!0),o=async e=>{u(null);try{return await e(),!0}catch($){return u($),!1}};return t`<${S} id="backups-part" title="Backups">
    <${_} error=${m||i} />
    <form class="inline-form" onSubmit=${async e=>{e.preventDefault();let $=new FormData(e.target),r={mode:$.get("mode")};$.get("note")&&(r.note=$.get("note")),await o(()=>n("POST","/backups",r))&&e.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${k} name="note" label="Note (optional)" error=${m} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${f} onChange=${e=>l(e.target.checked)} /> Start the machine after a restore</label>
    ${a&&(a.items.length===0?t`<p>No backups yet.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.items.map(e=>t`<tr key=${e.id} data-backup=${e.id}>
        <td>${B(e.created_at)}</td><td>${ee(e.size_bytes)}</td><td>${e.mode}</td><td>${e.origin}</td><td>${e.note||""}</td>
        <td><${O} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>o(()=>n("POST",`/backups/${encodeURIComponent(e.id)}/restore`,{start_after:f}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ie({m:s,at:n,act:d,ended:a}){let[i,m]=ne(n("/snapshots?limit=200"),a),[u,f]=b(null),l=async e=>{f(null);try{return await e(),!0}catch($){return f($),!1}},o=async e=>{e.preventDefault();let $=new FormData(e.target),r={name:$.get("name")};$.get("description")&&(r.description=$.get("description")),$.get("include_memory")&&(r.include_memory=!0),await l(()=>d("POST","/snapshots",r))&&e.target.reset()},c=e=>`/snapshots/${encodeURIComponent(e.name)}`;return t`<${S} id="snapshots-part" title="Snapshots">
    <${_} error=${u||m} />
    <form class="inline-form" onSubmit=${o} aria-label="Take a snapshot">
      <${k} name="name" label="Name" error=${u} required />
      <${k} name="description" label="Description (optional)" error=${u} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${s.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?t`<p>No snapshots.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(e=>t`<tr key=${e.name} data-snapshot=${e.name}>
        <td>${e.name}</td><td>${B(e.created_at)}</td><td>${e.includes_memory?"yes":"no"}</td><td>${e.description||""}</td>
        <td class="row-actions">
          <${O} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${e.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>d("POST",`${c(e)}/rollback`))} />
          <${O} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${e.name}?`}
            onYes=${()=>l(()=>d("DELETE",c(e)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function le({m:s,base:n,onMachine:d}){let[a,i]=b(null),[m,u]=b(""),f=r=>`${n}/addresses/${encodeURIComponent(r.address)}`,l=async r=>{i(null);try{let h=await r();return h&&h.id&&d(h),!0}catch(h){return i(h),!1}},o=async(r,h)=>{r.preventDefault();let C=new FormData(r.target).get("ptr").trim();await l(()=>w("PUT",`${f(h)}/ptr`,{ptr:C}))&&u("")},c=async r=>{r.preventDefault();let h=new FormData(r.target),C={version:Number(h.get("version"))};h.get("address")&&(C.address=h.get("address").trim()),await l(()=>w("POST",`${n}/addresses`,C))&&r.target.reset()},e=s.addresses||[],$=e[0];return t`<${S} id="addresses-part" title="Addresses">
    <${_} error=${a} />
    ${e.length===0?t`<p>No addresses from the IP pools.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${e.map(r=>t`<tr key=${r.address} data-address=${r.address}>
        <td>${r.address}/${r.prefix}${r===$?" (primary)":""}</td><td>${r.gateway||""}</td>
        <td>${m===r.address?t`<form class="inline-form" onSubmit=${h=>o(h,r)} aria-label=${`Reverse DNS name of ${r.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${r.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>u("")}>Cancel</button></form>`:t`<span data-ptr>${r.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${m!==r.address&&t`<button type="button" data-edit-ptr onClick=${()=>u(r.address)}>Edit reverse DNS</button>`}
          ${r!==$&&t`<${O} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${r.address} back to its pool? The machine stops using it.`}
            onYes=${()=>l(()=>w("DELETE",f(r)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${c} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function X(){let[s,n]=b(null);return[s,async a=>{n(null);try{return await a(),!0}catch(i){return n(i),!1}}]}function de({m:s,act:n}){let d=z(se),[a,i]=X(),[m,u]=b(""),f=(d?.items||[]).filter(l=>l.status==="ready");return t`<${S} id="media-part" title="ISO and rescue">
    <${_} error=${a||d?.error} />
    <p>In the CD-ROM drive: <strong data-media>${s.media?s.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${l=>u(l.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${d?f.length?"choose an image":"no image is ready":"loading…"}</option>
          ${f.map(l=>t`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&t`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||s.rescue} onClick=${()=>i(()=>n("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!s.media||s.rescue} onClick=${()=>i(()=>n("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${s.rescue?"on":"off"}</strong>.</p>
    ${s.rescue?t`<${O} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!1}))} />`:t`<${O} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ce({m:s,act:n}){let d=z(L),[a,i]=X(),[m,u]=b(null),f=o=>{o.preventDefault(),u(o.target)},l=async()=>{let o=new FormData(m),c={template_id:o.get("template_id")};o.get("password")&&(c.password=o.get("password"));let e=String(o.get("ssh_keys")||"").split(`
`).map($=>$.trim()).filter(Boolean);e.length&&(c.ssh_keys=e),await i(()=>n("POST","/reinstall",c))&&m.reset(),u(null)};return t`<${S} id="reinstall-part" title="Reinstall">
    <${_} error=${a||d?.error} />
    <form onSubmit=${f} aria-label="Reinstall">
      <div class="grid">
        <${Z} templates=${d} error=${a} value=${s.template_id} />
        <${k} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?t`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${o=>o?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>u(null)}>Cancel</button></p>`:t`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function Z({templates:s,error:n,value:d}){let a=n?.fields?.template_id;return t`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!s&&t`<option value="">loading…</option>`}
      ${(s?.items||[]).map(i=>t`<option value=${i.id} selected=${i.id===d}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&t`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var Q=s=>n=>{n&&!n.dataset.filled&&(n.value=s,n.dataset.filled="1")};function pe({m:s,act:n}){let d=z(j),[a,i]=X(),[m,u]=b(""),f=async l=>{l.preventDefault();let o=new FormData(l.target),c={};for(let e of["cpu_cores","memory_mb","disk_gb"]){let $=Number(o.get(e));o.get(e)&&$!==s[e]&&(c[e]=$)}Object.keys(c).length&&await i(()=>n("PATCH","/resources",c))};return t`<${S} id="resize-part" title="Resize">
    <${_} error=${a||d?.error} />
    ${d?.items?.length>0&&t`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${l=>u(l.target.value)}>
        <option value="">choose a plan</option>
        ${d.items.map(l=>t`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${E(l.memory_mb)}, ${D(l.disk_gb)}${l.id===s.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>i(()=>n("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${s.cpu_cores}/${s.memory_mb}/${s.disk_gb}`} onSubmit=${f} aria-label="Resize">
      <div class="grid">
        <${k} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${Q(s.cpu_cores)} />
        <${k} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${Q(s.memory_mb)} />
        <${k} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${s.disk_gb} inputRef=${Q(s.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var $e=H(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),be=H(()=>import("./terminal-BSGQFQT7.js"),"Console"),he=H(()=>import("./vnc-7YJN2TCX.js"),"VNC"),F="/api/client/machines";function W({task:s}){if(!s)return null;let n=V.value[s.id]||s;return t`<span class="task" aria-live="polite">${n.type}: <${G} value=${n.status} />${n.error?t` <span class="field-error">${n.error}</span>`:""}</span>`}var fe=[["start","Start",ae],["stop","Stop",K],["shutdown","Shut down",K],["reboot","Reboot",oe]],ge=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],ye=(s,n)=>d=>{let a=`${s}${d}`;return n?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(n)}`:a};function tt({id:s,admin:n,tenant:d}){let[a,i]=b(null),[m,u]=b([]),[f,l]=b(null),[o,c]=b(null),[e,$]=b(0),[r,h]=b(!1),[C,A]=b(!1),N=`${F}/${encodeURIComponent(s)}`,P=`/api/virt/vms/${encodeURIComponent(s)}`,g=ye(N,n?d:""),T=()=>w("GET",g("")).then(p=>{i(p),p.last_task&&c(y=>y||p.last_task)},l);R(()=>{i(null),c(null),l(null),h(!1),A(!1),T(),w("GET",g("/tasks?limit=20")).then(p=>u(p.items),()=>{})},[s,d]),R(()=>q((p,y)=>{p==="machine.updated"&&y.id===s&&i(M=>M&&{...M,...y}),p==="task.updated"&&y.target_id===s&&(u(M=>M.some(x=>x.id===y.id)?M.map(x=>x.id===y.id?y:x):[y,...M]),(y.status==="succeeded"||y.status==="failed")&&($(M=>M+1),T()))}),[s]);let U=async(p,y,M)=>{let x=await w(p,g(y),M);return c(x.task),u(J=>J.some(ue=>ue.id===x.task.id)?J:[x.task,...J]),x.task},I=async p=>{l(null);try{await U("POST",`/actions/${p}`)}catch(y){l(y)}},Y={m:a,at:g,act:U,ended:e};return t`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${_} error=${f} />
    ${a&&t`<h1>${a.name} <${G} value=${a.status} />${a.rescue?t` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${ge.filter(([p])=>p!=="vnc"||a.display).map(([p,y])=>t`<li><a href=${`#${p}`}>${y}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${fe.map(([p,y,M])=>t`<button onClick=${()=>I(p)} data-action=${p}><${M} />${y}</button>`)}
      </div>
      ${o&&t`<p>Last action: <${W} task=${o} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${E(a.memory_mb)} memory, ${D(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(p=>p.ip_addresses||[]).join(", ")||(a.addresses||[]).map(p=>p.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${B(a.created_at)}</dd>
      </dl>
      <div id="addresses"><${le} m=${a} base=${n?P:N} onMachine=${p=>i(y=>({...y,...p}))} /></div>
      <div id="graphs"><${S} id="graphs-part" title="Graphs"><${$e} url=${`${n?P:N}/usage-graphs`} /><//></div>
      <div id="console"><${S} id="console-part" title="Serial console">
        ${r?t`<${be} url=${`${n?P:N}/console`} /><button type="button" onClick=${()=>h(!1)}>Close console</button>`:t`<button type="button" onClick=${()=>h(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&t`<div id="vnc"><${S} id="vnc-part" title="Graphical console (VNC)">
        ${C?t`<${he} url=${`${n?P:N}/console`} /><button type="button" onClick=${()=>A(!1)}>Close the graphical console</button>`:t`<button type="button" onClick=${()=>A(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${re} ...${Y} /></div>
      <div id="snapshots"><${ie} ...${Y} /></div>
      <div id="media"><${de} ...${Y} /></div>
      <div id="reinstall"><${ce} ...${Y} /></div>
      <div id="resize"><${pe} ...${Y} /></div>
      <div id="tasks"><${S} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(p=>V.value[p.id]||p).map(p=>t`<tr key=${p.id}><td>${p.type}</td><td><${G} value=${p.status} /></td><td>${B(p.created_at)}</td><td>${p.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function pt(){let[s,n]=b(null),[d,a]=b(null),[i,m]=b([""]),u=i[i.length-1];R(()=>{let o=!0;return w("GET",`${F}?limit=50${u?`&cursor=${encodeURIComponent(u)}`:""}`).then(c=>o&&n(c),c=>o&&a(c)),()=>{o=!1}},[u]),R(()=>q((o,c)=>{o!=="machine.updated"&&o!=="machine.deleted"||n(e=>{if(!e)return e;let $=e.items.findIndex(r=>r.id===c.id);return o==="machine.deleted"?$<0?e:{...e,items:e.items.filter(r=>r.id!==c.id)}:$>=0?{...e,items:e.items.map(r=>r.id===c.id?{...r,...c}:r)}:i.length===1?{...e,items:[c,...e.items]}:e})}),[i.length]);let f=o=>n(c=>c&&!c.items.some(e=>e.id===o.machine.id)?{...c,items:[{...o.machine,task_id:o.task.id},...c.items]}:c),l={};for(let o of Object.values(V.value)){let c=l[o.target_id];(!c||c.created_at<o.created_at)&&(l[o.target_id]=o)}return t`<main id="main">
    <h1>Machines</h1>
    <${_} error=${d} />
    <${ve} onCreated=${f} />
    ${s&&t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${s.items.map(o=>t`<tr key=${o.id} data-machine=${o.id}>
        <td><a href=${`/machines/${encodeURIComponent(o.id)}`}>${o.name}</a></td>
        <td><${G} value=${o.status} /></td>
        <td>${o.cpu_cores} CPU, ${E(o.memory_mb)}, ${D(o.disk_gb)}</td>
        <td>${l[o.id]?t`<${W} task=${l[o.id]} />`:o.task_id?t`<${W} task=${{id:o.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${s.items.length===0&&t`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>m(i.slice(0,-1))}>Previous</button>
      <button disabled=${!s.next_cursor} onClick=${()=>m([...i,s.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function ve({onCreated:s,admin:n}){let[d,a]=b(null),i=z(L),m=z(j),u=z(n?te:null),[f,l]=b(!1),[o,c]=b(null),e=m?.items||[],$=n||m&&e.length===0,r=o??($?"":e[0]?.id||""),h=e.find(g=>g.id===r),C=h?.allowed_templates?.length?new Set(h.allowed_templates):null,A=i&&(C?{...i,items:i.items.filter(g=>C.has(g.id))}:i),N=async g=>{g.preventDefault();let T=new FormData(g.target),U={name:T.get("name"),template_id:T.get("template_id")};if(h)U.plan_id=h.id;else for(let I of["cpu_cores","memory_mb","disk_gb"])T.get(I)&&(U[I]=Number(T.get(I)));a(null);try{s(await w("POST",n?`${F}?tenant_id=${encodeURIComponent(T.get("tenant_id"))}`:F,U)),g.target.reset(),l(!1)}catch(I){a(I)}};if(!f)return t`<button class="primary" onClick=${()=>l(!0)}>New machine</button>`;let P=d?.fields?.plan_id;return t`<form class="card" onSubmit=${N} aria-label="New machine">
    <${_} error=${d||m?.error||u?.error} />
    <div class="grid">
      <${k} name="name" label="Name" error=${d} required />
      ${n&&t`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(u?.items||[]).map(g=>t`<option value=${g.id}>${g.name}</option>`)}</select></label>`}
      ${e.length>0&&t`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${r} onChange=${g=>c(g.target.value)} aria-invalid=${P?"true":void 0} aria-describedby=${P?"plan_id-error":void 0}>
          ${$&&t`<option value="">custom sizes</option>`}
          ${e.map(g=>t`<option value=${g.id}>${g.name}: ${g.cpu_cores} CPU, ${E(g.memory_mb)}, ${D(g.disk_gb)}</option>`)}
        </select>${P&&t`<span class="field-error" id="plan_id-error">${P}</span>`}</label>`}
      <${Z} key=${r} templates=${A} error=${d} />
      ${h?t`<p class="muted" data-plan-sizes>${h.cpu_cores} CPU, ${E(h.memory_mb)}, ${D(h.disk_gb)} from the plan</p>`:$&&t`
          <${k} name="cpu_cores" label="CPU cores" error=${d} type="number" min="1" />
          <${k} name="memory_mb" label="Memory (MB)" error=${d} type="number" min="1" />
          <${k} name="disk_gb" label="Disk (GB)" error=${d} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
  </form>`}export{_e as a,Se as b,Me as c,we as d,Ce as e,Pe as f,xe as g,Te as h,Re as i,Ee as j,De as k,Oe as l,ze as m,tt as n,pt as o,ve as p};
