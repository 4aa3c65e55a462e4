import{a as A,b as V}from"./chunk-MIMHD4HQ.js";import{a as Y,c as L,d as j,e as oe,f as ae}from"./chunk-ZZQYSPDV.js";import{c as K}from"./chunk-TBCE6UEU.js";import{a as H}from"./chunk-AX76OU66.js";import{b as se}from"./chunk-JV7NVBOQ.js";import{a as T}from"./chunk-HOYY2OMK.js";import{a as h,b as R,l as _,n as z,o as U,p as O,q,r as w,s as S,t as ne,u as C}from"./chunk-E4PU34WH.js";import{g as e}from"./chunk-XGWGEZEQ.js";var M=t=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${t} /></svg>`,Te=M("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Pe=M("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),xe=M("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Re=M("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),Q=M("M7 4l13 8-13 8z"),W=M("M6 6h12v12H6z"),re=M("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),De=M("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Ee=M("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Oe=M("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ne=M("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Ie=M("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),ze=M("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Ue=M("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Ye=M("M3 12h4l3-7 4 14 3-7h4"),Ge=M("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01");function ie(t,n){let[u,o]=h(null),[i,$]=h(null);return R(()=>{let m=!0;return _("GET",t).then(f=>{m&&(o(f),$(null))},f=>m&&$(f)),()=>{m=!1}},[t,n]),[u,i]}function le({at:t,act:n,ended:u}){let[o,i]=h(0),[$,m]=ie(t("/backups?limit=100"),`${u}/${o}`),[f,d]=h(null),[r,c]=h(!0),a=async s=>{d(null);try{return await s(),!0}catch(l){return d(l),!1}};return e`<${C} id="backups-part" title="Backups">
    <${w} error=${f||m} />
    <form class="inline-form" onSubmit=${async s=>{s.preventDefault();let l=new FormData(s.target),p={mode:l.get("mode")};l.get("note")&&(p.note=l.get("note")),await a(()=>n("POST","/backups",p))&&s.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${S} name="note" label="Note (optional)" error=${f} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${r} onChange=${s=>c(s.target.checked)} /> Start the machine after a restore</label>
    ${$&&($.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${$.items.map(s=>e`<tr key=${s.id} data-backup=${s.id}>
        <td>${O(s.created_at)}</td><td>${ne(s.size_bytes)}</td><td>${s.mode}</td><td>${s.origin}</td><td>${s.note||""}</td>
        <td><${T} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>a(()=>n("POST",`/backups/${encodeURIComponent(s.id)}/restore`,{start_after:r}))} />
          <${T} name="delete-backup" label="Delete" yes="Yes, delete" question="Delete this backup for good?"
          onYes=${()=>a(()=>_("DELETE",`/api/resources/backups/${encodeURIComponent(s.id)}`)).then(l=>l&&i(p=>p+1))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function de({m:t,at:n,act:u,ended:o}){let[i,$]=ie(n("/snapshots?limit=200"),o),[m,f]=h(null),d=async a=>{f(null);try{return await a(),!0}catch(g){return f(g),!1}},r=async a=>{a.preventDefault();let g=new FormData(a.target),s={name:g.get("name")};g.get("description")&&(s.description=g.get("description")),g.get("include_memory")&&(s.include_memory=!0),await d(()=>u("POST","/snapshots",s))&&a.target.reset()},c=a=>`/snapshots/${encodeURIComponent(a.name)}`;return e`<${C} id="snapshots-part" title="Snapshots">
    <${w} error=${m||$} />
    <form class="inline-form" onSubmit=${r} aria-label="Take a snapshot">
      <${S} name="name" label="Name" error=${m} required />
      <${S} name="description" label="Description (optional)" error=${m} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${t.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(a=>e`<tr key=${a.name} data-snapshot=${a.name}>
        <td>${a.name}</td><td>${O(a.created_at)}</td><td>${a.includes_memory?"yes":"no"}</td><td>${a.description||""}</td>
        <td class="row-actions">
          <${T} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${a.name}? Changes since it are lost.`}
            onYes=${()=>d(()=>u("POST",`${c(a)}/rollback`))} />
          <${T} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${a.name}?`}
            onYes=${()=>d(()=>u("DELETE",c(a)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ce({m:t,base:n,onMachine:u}){let[o,i]=h(null),[$,m]=h(""),f=s=>`${n}/addresses/${encodeURIComponent(s.address)}`,d=async s=>{i(null);try{let l=await s();return l&&l.id&&u(l),!0}catch(l){return i(l),!1}},r=async(s,l)=>{s.preventDefault();let p=new FormData(s.target).get("ptr").trim();await d(()=>_("PUT",`${f(l)}/ptr`,{ptr:p}))&&m("")},c=async s=>{s.preventDefault();let l=new FormData(s.target),p={version:Number(l.get("version"))};l.get("address")&&(p.address=l.get("address").trim()),await d(()=>_("POST",`${n}/addresses`,p))&&s.target.reset()},a=t.addresses||[],g=a[0];return e`<${C} id="addresses-part" title="Addresses">
    <${w} error=${o} />
    ${a.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.map(s=>e`<tr key=${s.address} data-address=${s.address}>
        <td>${s.address}/${s.prefix}${s===g?" (primary)":""}</td><td>${s.gateway||""}</td>
        <td>${$===s.address?e`<form class="inline-form" onSubmit=${l=>r(l,s)} aria-label=${`Reverse DNS name of ${s.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${s.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>m("")}>Cancel</button></form>`:e`<span data-ptr>${s.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${$!==s.address&&e`<button type="button" data-edit-ptr onClick=${()=>m(s.address)}>Edit reverse DNS</button>`}
          ${s!==g&&e`<${T} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${s.address} back to its pool? The machine stops using it.`}
            onYes=${()=>d(()=>_("DELETE",f(s)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${c} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function ee(){let[t,n]=h(null);return[t,async o=>{n(null);try{return await o(),!0}catch(i){return n(i),!1}}]}function pe({m:t,act:n}){let u=Y(ae),[o,i]=ee(),[$,m]=h(""),f=(u?.items||[]).filter(d=>d.status==="ready");return e`<${C} id="media-part" title="ISO and rescue">
    <${w} error=${o||u?.error} />
    <p>In the CD-ROM drive: <strong data-media>${t.media?t.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${$} onChange=${d=>m(d.target.value)} aria-describedby=${o?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${u?f.length?"choose an image":"no image is ready":"loading…"}</option>
          ${f.map(d=>e`<option value=${d.id}>${d.name}</option>`)}
        </select>
        ${o?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${o.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!$||t.rescue} onClick=${()=>i(()=>n("POST","/media",{iso_id:$}))}>Mount</button>
      <button type="button" disabled=${!t.media||t.rescue} onClick=${()=>i(()=>n("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${t.rescue?"on":"off"}</strong>.</p>
    ${t.rescue?e`<${T} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!1}))} />`:e`<${T} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ue({m:t,act:n}){let u=Y(L),[o,i]=ee(),[$,m]=h(null),f=r=>{r.preventDefault(),m(r.target)},d=async()=>{let r=new FormData($),c={template_id:r.get("template_id")};r.get("password")&&(c.password=r.get("password"));let a=String(r.get("ssh_keys")||"").split(`
`).map(g=>g.trim()).filter(Boolean);a.length&&(c.ssh_keys=a),await i(()=>n("POST","/reinstall",c))&&$.reset(),m(null)};return e`<${C} id="reinstall-part" title="Reinstall">
    <${w} error=${o||u?.error} />
    <form onSubmit=${f} aria-label="Reinstall">
      <div class="grid">
        <${te} templates=${u} error=${o} value=${t.template_id} />
        <${S} name="password" label="New root password (optional)" error=${o} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${$?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${r=>r?.focus()} onClick=${d}>Yes, reinstall</button>
            <button type="button" onClick=${()=>m(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function te({templates:t,error:n,value:u}){let o=n?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${o?"true":void 0} aria-describedby=${o?"template_id-error":void 0}>
      ${!t&&e`<option value="">loading…</option>`}
      ${(t?.items||[]).map(i=>e`<option value=${i.id} selected=${i.id===u}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${o&&e`<span class="field-error" id="template_id-error">${o}</span>`}
  </label>`}var Z=t=>n=>{n&&!n.dataset.filled&&(n.value=t,n.dataset.filled="1")};function me({m:t,act:n}){let u=Y(j),[o,i]=ee(),[$,m]=h(""),f=async d=>{d.preventDefault();let r=new FormData(d.target),c={};for(let a of["cpu_cores","memory_mb","disk_gb"]){let g=Number(r.get(a));r.get(a)&&g!==t[a]&&(c[a]=g)}Object.keys(c).length&&await i(()=>n("PATCH","/resources",c))};return e`<${C} id="resize-part" title="Resize">
    <${w} error=${o||u?.error} />
    ${u?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${$} onChange=${d=>m(d.target.value)}>
        <option value="">choose a plan</option>
        ${u.items.map(d=>e`<option value=${d.id}>${d.name}: ${d.cpu_cores} CPU, ${z(d.memory_mb)}, ${U(d.disk_gb)}${d.id===t.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!$} onClick=${()=>i(()=>n("POST","/plan",{plan_id:$}))}>Move to plan</button>
    </div>`}
    <form key=${`${t.cpu_cores}/${t.memory_mb}/${t.disk_gb}`} onSubmit=${f} aria-label="Resize">
      <div class="grid">
        <${S} name="cpu_cores" label="CPU cores" error=${o} type="number" min="1" inputRef=${Z(t.cpu_cores)} />
        <${S} name="memory_mb" label="Memory (MB)" error=${o} type="number" min="1" inputRef=${Z(t.memory_mb)} />
        <${S} name="disk_gb" label="Disk (GB, only grows)" error=${o} type="number" min=${t.disk_gb} inputRef=${Z(t.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var ge=[["disk","Disk"],["cdrom","CD-ROM"],["net","Network (PXE)"]];function $e({m:t,act:n,ended:u,onGone:o}){let[i,$]=K(),[m,f]=h(null),d=`/api/resources/machines/${encodeURIComponent(t.id)}`,r=async l=>{l.preventDefault();let p=String(new FormData(l.target).get("name")).trim();p!==t.name&&await $(()=>n("PATCH",d,{name:p}))},c=async l=>{l.preventDefault();let p=new FormData(l.target),k=["boot0","boot1","boot2"].map(P=>String(p.get(P)||"")).filter(Boolean);await $(()=>n("PUT","/boot-order",{order:k}))};R(()=>{m&&_("GET",`/api/tasks/${encodeURIComponent(m)}`).then(l=>{l.status==="succeeded"&&o()},()=>{})},[u,m]);let a=async()=>{let l;await $(async()=>{l=await n("DELETE","")})&&f(l.id)},g=t.boot_order||[],s=l=>i?.fields?.[l]&&e`<span class="field-error" id=${`${l}-error`}>${i.fields[l]}</span>`;return e`<${C} id="manage-part" title="Name, boot order and deletion">
    <${w} error=${i} />
    <form class="inline-form" onSubmit=${r} aria-label="Rename">
      <${S} key=${t.name} name="name" label="Name" error=${i} required maxlength="63" defaultValue=${t.name} spellcheck="false" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline-form" onSubmit=${c} aria-label="Boot order" key=${g.join(",")}>
      ${["First","Then","Last"].map((l,p)=>e`<label class="field"><span>${l}</span>
        <select name=${`boot${p}`} aria-describedby=${i?.fields?.order?"order-error":void 0}>
          <option value="">${p?"nothing more":"choose a device"}</option>
          ${ge.map(([k,P])=>e`<option value=${k} selected=${g[p]===k}>${P}</option>`)}
        </select></label>`)}
      <button type="submit">Set the boot order</button>
      ${s("order")}
    </form>
    <p class="muted">The boot order applies at the next start.${t.boot_order?` Now: ${t.boot_order.join(", ")}.`:""}</p>
    ${m?e`<p role="status" data-deleting>Deleting the machine…</p>`:e`<${T} name="delete-machine" label="Delete this machine" yes="Yes, delete it"
        question=${`Delete ${t.name}, its disks with it? This cannot be undone.`} onYes=${a} />`}
  <//>`}function be({m:t,act:n,onMachine:u}){let[o,i]=K(),[$,m]=h(null),f=`/api/virt/vms/${encodeURIComponent(t.id)}`;R(()=>{_("GET","/api/virt/nodes?limit=500").then(p=>m(p.items),()=>m([]))},[]);let d=($||[]).filter(p=>p.name!==t.node&&(p.location_id||p.location||"default")===(t.location_id||"default")),r=async p=>{p.preventDefault();let k=new FormData(p.target);await i(()=>n("POST",`${f}/migrate`,{target_node:String(k.get("target_node")),online:k.get("online")==="on"}))},c=(p,k,P)=>i(async()=>u(await _(p,`${f}${k}`,P))),a=async p=>{p.preventDefault();let k=new FormData(p.target);await c("POST","/suspend-billing",{reason:String(k.get("reason")).trim(),action:String(k.get("action"))})},[g,s]=h(!1),l=t.billing_suspension;return e`<${C} id="operate-part" title="Operator">
    <${w} error=${o} />
    <form class="inline-form" onSubmit=${r} aria-label="Migrate">
      <label class="field"><span>Migrate to node</span><select name="target_node" required aria-invalid=${o?.fields?.target_node?"true":void 0}>
        ${d.length===0&&e`<option value="">${$?"no other node":"loading…"}</option>`}
        ${d.map(p=>e`<option value=${p.id||p.name}>${p.name}${p.status!=="online"?` (${p.status})`:""}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="online" defaultChecked=${t.status==="running"} /> Online (the machine keeps running)</label>
      <button type="submit" disabled=${d.length===0}>Migrate</button>
    </form>
    <h3>Billing</h3>
    ${l?e`<p data-billing>Suspended since ${O(l.since)}: ${l.reason} (${l.action}). Its tenant's users can read it but change nothing.</p>
        <div class="inline-form"><label class="check"><input type="checkbox" checked=${g} onChange=${p=>s(p.target.checked)} /> Start it again</label>
        <button type="button" data-unsuspend onClick=${()=>c("POST","/unsuspend-billing",{start:g})}>End the suspension</button></div>`:e`<form class="inline-form" onSubmit=${a} aria-label="Suspend for billing">
        <${S} name="reason" label="Reason (its tenant's users see it)" error=${o} required maxlength="500" />
        <label class="field"><span>A running machine is</span><select name="action">
          <option value="stop">stopped</option><option value="suspend">suspended</option><option value="none">left running</option></select></label>
        <button type="submit">Suspend for billing</button></form>`}
    <h3>Termination</h3>
    ${t.terminate_at?e`<p data-terminate>Marked for deletion with its snapshots and backups at ${O(t.terminate_at)}.</p>
        <button type="button" data-terminate-back onClick=${()=>c("DELETE","/terminate")}>Take the termination back</button>`:e`<${T} name="terminate" label="Terminate" yes="Yes, terminate it"
        question=${`Delete ${t.name} with every snapshot and backup it has, after the grace the server allows?`} onYes=${()=>c("POST","/terminate")} />`}
  <//>`}var ye=H(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),ve=H(()=>import("./terminal-BSGQFQT7.js"),"Console"),ke=H(()=>import("./vnc-7YJN2TCX.js"),"VNC"),F="/api/client/machines";function X({task:t}){if(!t)return null;let n=A.value[t.id]||t;return e`<span class="task" aria-live="polite">${n.type}: <${q} value=${n.status} />${n.error?e` <span class="field-error">${n.error}</span>`:""}</span>`}var _e=[["start","Start",Q],["stop","Stop",W],["shutdown","Shut down",W],["reboot","Reboot",re],["suspend","Suspend",W],["resume","Resume",Q]],Se=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["manage","Name and deletion"],["operate","Operator"],["tasks","Tasks"]],we=(t,n)=>u=>{let o=`${t}${u}`;return n?`${o}${o.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(n)}`:o};function ht({id:t,admin:n,tenant:u}){let[o,i]=h(null),[$,m]=h([]),[f,d]=h(null),[r,c]=h(null),[a,g]=h(0),[s,l]=h(!1),[p,k]=h(!1),P=`${F}/${encodeURIComponent(t)}`,D=`/api/virt/vms/${encodeURIComponent(t)}`,v=we(P,n?u:""),N=()=>_("GET",v("")).then(b=>{i(b),b.last_task&&c(y=>y||b.last_task)},d);R(()=>{i(null),c(null),d(null),l(!1),k(!1),N(),_("GET",v("/tasks?limit=20")).then(b=>m(b.items),()=>{})},[t,u]),R(()=>V((b,y)=>{b==="machine.updated"&&y.id===t&&i(x=>x&&{...x,...y}),b==="task.updated"&&y.target_id===t&&(m(x=>x.some(E=>E.id===y.id)?x.map(E=>E.id===y.id?y:E):[y,...x]),(y.status==="succeeded"||y.status==="failed")&&(g(x=>x+1),N()))}),[t]);let B=async(b,y,x)=>{let E=await _(b,y.startsWith("/api/")?y:v(y),x);return c(E.task),m(J=>J.some(he=>he.id===E.task.id)?J:[E.task,...J]),E.task},I=async b=>{d(null);try{await B("POST",`/actions/${b}`)}catch(y){d(y)}},G={m:o,at:v,act:B,ended:a};return e`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${w} error=${f} />
    ${o&&e`<h1>${o.name} <${q} value=${o.status} />${o.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Se.filter(([b])=>(b!=="vnc"||o.display)&&(b!=="operate"||n)).map(([b,y])=>e`<li><a href=${`#${b}`}>${y}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${_e.map(([b,y,x])=>e`<button onClick=${()=>I(b)} data-action=${b}><${x} />${y}</button>`)}
        <${T} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${()=>I("reset")} />
      </div>
      ${r&&e`<p>Last action: <${X} task=${r} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${o.cpu_cores} CPU, ${z(o.memory_mb)} memory, ${U(o.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${o.template_id}</dd>
        <dt>Node</dt><dd>${o.node}</dd>
        <dt>Addresses</dt><dd>${(o.interfaces||[]).flatMap(b=>b.ip_addresses||[]).join(", ")||(o.addresses||[]).map(b=>b.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${o.media?o.media.name:"none"}</dd>
        <dt>Created</dt><dd>${O(o.created_at)}</dd>
      </dl>
      <div id="addresses"><${ce} m=${o} base=${n?D:P} onMachine=${b=>i(y=>({...y,...b}))} /></div>
      <div id="graphs"><${C} id="graphs-part" title="Graphs"><${ye} url=${`${n?D:P}/usage-graphs`} /><//></div>
      <div id="console"><${C} id="console-part" title="Serial console">
        ${s?e`<${ve} url=${`${n?D:P}/console`} /><button type="button" onClick=${()=>l(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>l(!0)}>Open console</button>`}
      <//></div>
      ${o.display&&e`<div id="vnc"><${C} id="vnc-part" title="Graphical console (VNC)">
        ${p?e`<${ke} url=${`${n?D:P}/console`} /><button type="button" onClick=${()=>k(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>k(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${le} ...${G} /></div>
      <div id="snapshots"><${de} ...${G} /></div>
      <div id="media"><${pe} ...${G} /></div>
      <div id="reinstall"><${ue} ...${G} /></div>
      <div id="resize"><${me} ...${G} /></div>
      <div id="manage"><${$e} ...${G} onGone=${()=>se(n?"/admin/machines":"/machines")} /></div>
      ${n&&e`<div id="operate"><${be} ...${G} onMachine=${b=>i(y=>({...y,...b}))} /></div>`}
      <div id="tasks"><${C} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${$.map(b=>A.value[b.id]||b).map(b=>e`<tr key=${b.id}><td>${b.type}</td><td><${q} value=${b.status} /></td><td>${O(b.created_at)}</td><td>${b.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function Mt(){let[t,n]=h(null),[u,o]=h(null),[i,$]=h([""]),m=i[i.length-1];R(()=>{let r=!0;return _("GET",`${F}?limit=50${m?`&cursor=${encodeURIComponent(m)}`:""}`).then(c=>r&&n(c),c=>r&&o(c)),()=>{r=!1}},[m]),R(()=>V((r,c)=>{r!=="machine.updated"&&r!=="machine.deleted"||n(a=>{if(!a)return a;let g=a.items.findIndex(s=>s.id===c.id);return r==="machine.deleted"?g<0?a:{...a,items:a.items.filter(s=>s.id!==c.id)}:g>=0?{...a,items:a.items.map(s=>s.id===c.id?{...s,...c}:s)}:i.length===1?{...a,items:[c,...a.items]}:a})}),[i.length]);let f=r=>n(c=>c&&!c.items.some(a=>a.id===r.machine.id)?{...c,items:[{...r.machine,task_id:r.task.id},...c.items]}:c),d={};for(let r of Object.values(A.value)){let c=d[r.target_id];(!c||c.created_at<r.created_at)&&(d[r.target_id]=r)}return e`<main id="main">
    <h1>Machines</h1>
    <${w} error=${u} />
    <${Ce} onCreated=${f} />
    ${t&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${t.items.map(r=>e`<tr key=${r.id} data-machine=${r.id}>
        <td><a href=${`/machines/${encodeURIComponent(r.id)}`}>${r.name}</a></td>
        <td><${q} value=${r.status} /></td>
        <td>${r.cpu_cores} CPU, ${z(r.memory_mb)}, ${U(r.disk_gb)}</td>
        <td>${d[r.id]?e`<${X} task=${d[r.id]} />`:r.task_id?e`<${X} task=${{id:r.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${t.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>$(i.slice(0,-1))}>Previous</button>
      <button disabled=${!t.next_cursor} onClick=${()=>$([...i,t.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Ce({onCreated:t,admin:n}){let[u,o]=h(null),i=Y(L),$=Y(j),m=Y(n?oe:null),[f,d]=h(!1),[r,c]=h(null),a=$?.items||[],g=n||$&&a.length===0,s=r??(g?"":a[0]?.id||""),l=a.find(v=>v.id===s),p=l?.allowed_templates?.length?new Set(l.allowed_templates):null,k=i&&(p?{...i,items:i.items.filter(v=>p.has(v.id))}:i),P=async v=>{v.preventDefault();let N=new FormData(v.target),B={name:N.get("name"),template_id:N.get("template_id")};if(l)B.plan_id=l.id;else for(let I of["cpu_cores","memory_mb","disk_gb"])N.get(I)&&(B[I]=Number(N.get(I)));o(null);try{t(await _("POST",n?`${F}?tenant_id=${encodeURIComponent(N.get("tenant_id"))}`:F,B)),v.target.reset(),d(!1)}catch(I){o(I)}};if(!f)return e`<button class="primary" onClick=${()=>d(!0)}>New machine</button>`;let D=u?.fields?.plan_id;return e`<form class="card" onSubmit=${P} aria-label="New machine">
    <${w} error=${u||$?.error||m?.error} />
    <div class="grid">
      <${S} name="name" label="Name" error=${u} required />
      ${n&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(m?.items||[]).map(v=>e`<option value=${v.id}>${v.name}</option>`)}</select></label>`}
      ${a.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${s} onChange=${v=>c(v.target.value)} aria-invalid=${D?"true":void 0} aria-describedby=${D?"plan_id-error":void 0}>
          ${g&&e`<option value="">custom sizes</option>`}
          ${a.map(v=>e`<option value=${v.id}>${v.name}: ${v.cpu_cores} CPU, ${z(v.memory_mb)}, ${U(v.disk_gb)}</option>`)}
        </select>${D&&e`<span class="field-error" id="plan_id-error">${D}</span>`}</label>`}
      <${te} key=${s} templates=${k} error=${u} />
      ${l?e`<p class="muted" data-plan-sizes>${l.cpu_cores} CPU, ${z(l.memory_mb)}, ${U(l.disk_gb)} from the plan</p>`:g&&e`
          <${S} name="cpu_cores" label="CPU cores" error=${u} type="number" min="1" />
          <${S} name="memory_mb" label="Memory (MB)" error=${u} type="number" min="1" />
          <${S} name="disk_gb" label="Disk (GB)" error=${u} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`}export{Te as a,Pe as b,xe as c,Re as d,De as e,Ee as f,Oe as g,Ne as h,Ie as i,ze as j,Ue as k,Ye as l,Ge as m,ht as n,Mt as o,Ce as p};
