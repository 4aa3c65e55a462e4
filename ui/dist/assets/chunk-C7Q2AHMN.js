import{a as F,b as V}from"./chunk-MIMHD4HQ.js";import{a as Y,c as L,d as j,e as oe,f as ae}from"./chunk-ZZQYSPDV.js";import{c as K}from"./chunk-TBCE6UEU.js";import{a as H}from"./chunk-AX76OU66.js";import{b as se}from"./chunk-JV7NVBOQ.js";import{a as T}from"./chunk-HOYY2OMK.js";import{a as f,b as R,l as S,n as I,o as U,p as O,q as A,r as w,s as _,t as ne,u as C}from"./chunk-E4PU34WH.js";import{g as e}from"./chunk-XGWGEZEQ.js";var M=t=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${t} /></svg>`,Pe=M("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Te=M("M6 16V11a6 6 0 0 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0"),xe=M("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 14a2 2 0 1 0 0-4 2 2 0 0 0 0 4z"),Re=M("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),Q=M("M7 4l13 8-13 8z"),W=M("M6 6h12v12H6z"),re=M("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),De=M("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Ee=M("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Oe=M("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Ne=M("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),ze=M("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),Ie=M("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Ue=M("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Ye=M("M3 12h4l3-7 4 14 3-7h4"),Be=M("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01");function ie(t,o){let[p,n]=f(null),[r,$]=f(null);return R(()=>{let u=!0;return S("GET",t).then(g=>{u&&(n(g),$(null))},g=>u&&$(g)),()=>{u=!1}},[t,o]),[p,r]}function le({at:t,act:o,ended:p}){let[n,r]=ie(t("/backups?limit=100"),p),[$,u]=f(null),[g,l]=f(!0),a=async s=>{u(null);try{return await s(),!0}catch(h){return u(h),!1}};return e`<${C} id="backups-part" title="Backups">
    <${w} error=${$||r} />
    <form class="inline-form" onSubmit=${async s=>{s.preventDefault();let h=new FormData(s.target),i={mode:h.get("mode")};h.get("note")&&(i.note=h.get("note")),await a(()=>o("POST","/backups",i))&&s.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${_} name="note" label="Note (optional)" error=${$} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${g} onChange=${s=>l(s.target.checked)} /> Start the machine after a restore</label>
    ${n&&(n.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${n.items.map(s=>e`<tr key=${s.id} data-backup=${s.id}>
        <td>${O(s.created_at)}</td><td>${ne(s.size_bytes)}</td><td>${s.mode}</td><td>${s.origin}</td><td>${s.note||""}</td>
        <td><${T} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>a(()=>o("POST",`/backups/${encodeURIComponent(s.id)}/restore`,{start_after:g}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function de({m:t,at:o,act:p,ended:n}){let[r,$]=ie(o("/snapshots?limit=200"),n),[u,g]=f(null),l=async s=>{g(null);try{return await s(),!0}catch(h){return g(h),!1}},a=async s=>{s.preventDefault();let h=new FormData(s.target),i={name:h.get("name")};h.get("description")&&(i.description=h.get("description")),h.get("include_memory")&&(i.include_memory=!0),await l(()=>p("POST","/snapshots",i))&&s.target.reset()},c=s=>`/snapshots/${encodeURIComponent(s.name)}`;return e`<${C} id="snapshots-part" title="Snapshots">
    <${w} error=${u||$} />
    <form class="inline-form" onSubmit=${a} aria-label="Take a snapshot">
      <${_} name="name" label="Name" error=${u} required />
      <${_} name="description" label="Description (optional)" error=${u} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${t.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${r&&(r.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${r.items.map(s=>e`<tr key=${s.name} data-snapshot=${s.name}>
        <td>${s.name}</td><td>${O(s.created_at)}</td><td>${s.includes_memory?"yes":"no"}</td><td>${s.description||""}</td>
        <td class="row-actions">
          <${T} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${s.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>p("POST",`${c(s)}/rollback`))} />
          <${T} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${s.name}?`}
            onYes=${()=>l(()=>p("DELETE",c(s)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ce({m:t,base:o,onMachine:p}){let[n,r]=f(null),[$,u]=f(""),g=i=>`${o}/addresses/${encodeURIComponent(i.address)}`,l=async i=>{r(null);try{let d=await i();return d&&d.id&&p(d),!0}catch(d){return r(d),!1}},a=async(i,d)=>{i.preventDefault();let m=new FormData(i.target).get("ptr").trim();await l(()=>S("PUT",`${g(d)}/ptr`,{ptr:m}))&&u("")},c=async i=>{i.preventDefault();let d=new FormData(i.target),m={version:Number(d.get("version"))};d.get("address")&&(m.address=d.get("address").trim()),await l(()=>S("POST",`${o}/addresses`,m))&&i.target.reset()},s=t.addresses||[],h=s[0];return e`<${C} id="addresses-part" title="Addresses">
    <${w} error=${n} />
    ${s.length===0?e`<p>No addresses from the IP pools.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">The machine's addresses</caption>
      <thead><tr><th scope="col">Address</th><th scope="col">Gateway</th><th scope="col">Reverse DNS</th><th scope="col">Actions</th></tr></thead>
      <tbody>${s.map(i=>e`<tr key=${i.address} data-address=${i.address}>
        <td>${i.address}/${i.prefix}${i===h?" (primary)":""}</td><td>${i.gateway||""}</td>
        <td>${$===i.address?e`<form class="inline-form" onSubmit=${d=>a(d,i)} aria-label=${`Reverse DNS name of ${i.address}`}>
              <label class="field"><span>Name (empty clears it)</span><input name="ptr" defaultValue=${i.ptr||""} maxlength="253" autofocus /></label>
              <button type="submit" class="primary">Save</button><button type="button" onClick=${()=>u("")}>Cancel</button></form>`:e`<span data-ptr>${i.ptr||"none"}</span>`}</td>
        <td class="row-actions">
          ${$!==i.address&&e`<button type="button" data-edit-ptr onClick=${()=>u(i.address)}>Edit reverse DNS</button>`}
          ${i!==h&&e`<${T} name="remove-address" label="Remove" yes="Yes, remove"
            question=${`Give ${i.address} back to its pool? The machine stops using it.`}
            onYes=${()=>l(()=>S("DELETE",g(i)))} />`}
        </td></tr>`)}</tbody></table></div>`}
    <form class="inline-form" onSubmit=${c} aria-label="Add an address">
      <label class="field"><span>Version</span><select name="version"><option value="4">IPv4 address</option><option value="6">IPv6 /64 prefix</option></select></label>
      <label class="field"><span>Address (optional, IPv4)</span><input name="address" /></label>
      <button type="submit" class="primary">Add an address</button>
    </form>
  <//>`}function ee(){let[t,o]=f(null);return[t,async n=>{o(null);try{return await n(),!0}catch(r){return o(r),!1}}]}function pe({m:t,act:o}){let p=Y(ae),[n,r]=ee(),[$,u]=f(""),g=(p?.items||[]).filter(l=>l.status==="ready");return e`<${C} id="media-part" title="ISO and rescue">
    <${w} error=${n||p?.error} />
    <p>In the CD-ROM drive: <strong data-media>${t.media?t.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${$} onChange=${l=>u(l.target.value)} aria-describedby=${n?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${p?g.length?"choose an image":"no image is ready":"loading…"}</option>
          ${g.map(l=>e`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${n?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${n.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!$||t.rescue} onClick=${()=>r(()=>o("POST","/media",{iso_id:$}))}>Mount</button>
      <button type="button" disabled=${!t.media||t.rescue} onClick=${()=>r(()=>o("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${t.rescue?"on":"off"}</strong>.</p>
    ${t.rescue?e`<${T} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>r(()=>o("POST","/rescue",{enabled:!1}))} />`:e`<${T} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>r(()=>o("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ue({m:t,act:o}){let p=Y(L),[n,r]=ee(),[$,u]=f(null),g=a=>{a.preventDefault(),u(a.target)},l=async()=>{let a=new FormData($),c={template_id:a.get("template_id")};a.get("password")&&(c.password=a.get("password"));let s=String(a.get("ssh_keys")||"").split(`
`).map(h=>h.trim()).filter(Boolean);s.length&&(c.ssh_keys=s),await r(()=>o("POST","/reinstall",c))&&$.reset(),u(null)};return e`<${C} id="reinstall-part" title="Reinstall">
    <${w} error=${n||p?.error} />
    <form onSubmit=${g} aria-label="Reinstall">
      <div class="grid">
        <${te} templates=${p} error=${n} value=${t.template_id} />
        <${_} name="password" label="New root password (optional)" error=${n} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${$?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${a=>a?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>u(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function te({templates:t,error:o,value:p}){let n=o?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${n?"true":void 0} aria-describedby=${n?"template_id-error":void 0}>
      ${!t&&e`<option value="">loading…</option>`}
      ${(t?.items||[]).map(r=>e`<option value=${r.id} selected=${r.id===p}>${r.name}${r.disk_gb?` (at least ${r.disk_gb} GB)`:""}</option>`)}
    </select>
    ${n&&e`<span class="field-error" id="template_id-error">${n}</span>`}
  </label>`}var Z=t=>o=>{o&&!o.dataset.filled&&(o.value=t,o.dataset.filled="1")};function me({m:t,act:o}){let p=Y(j),[n,r]=ee(),[$,u]=f(""),g=async l=>{l.preventDefault();let a=new FormData(l.target),c={};for(let s of["cpu_cores","memory_mb","disk_gb"]){let h=Number(a.get(s));a.get(s)&&h!==t[s]&&(c[s]=h)}Object.keys(c).length&&await r(()=>o("PATCH","/resources",c))};return e`<${C} id="resize-part" title="Resize">
    <${w} error=${n||p?.error} />
    ${p?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${$} onChange=${l=>u(l.target.value)}>
        <option value="">choose a plan</option>
        ${p.items.map(l=>e`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${I(l.memory_mb)}, ${U(l.disk_gb)}${l.id===t.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!$} onClick=${()=>r(()=>o("POST","/plan",{plan_id:$}))}>Move to plan</button>
    </div>`}
    <form key=${`${t.cpu_cores}/${t.memory_mb}/${t.disk_gb}`} onSubmit=${g} aria-label="Resize">
      <div class="grid">
        <${_} name="cpu_cores" label="CPU cores" error=${n} type="number" min="1" inputRef=${Z(t.cpu_cores)} />
        <${_} name="memory_mb" label="Memory (MB)" error=${n} type="number" min="1" inputRef=${Z(t.memory_mb)} />
        <${_} name="disk_gb" label="Disk (GB, only grows)" error=${n} type="number" min=${t.disk_gb} inputRef=${Z(t.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var ge=[["disk","Disk"],["cdrom","CD-ROM"],["net","Network (PXE)"]];function $e({m:t,act:o,ended:p,onGone:n}){let[r,$]=K(),[u,g]=f(null),l=`/api/resources/machines/${encodeURIComponent(t.id)}`,a=async d=>{d.preventDefault();let m=String(new FormData(d.target).get("name")).trim();m!==t.name&&await $(()=>o("PATCH",l,{name:m}))},c=async d=>{d.preventDefault();let m=new FormData(d.target),k=["boot0","boot1","boot2"].map(P=>String(m.get(P)||"")).filter(Boolean);await $(()=>o("PUT","/boot-order",{order:k}))};R(()=>{u&&S("GET",`/api/tasks/${encodeURIComponent(u)}`).then(d=>{d.status==="succeeded"&&n()},()=>{})},[p,u]);let s=async()=>{let d;await $(async()=>{d=await o("DELETE","")})&&g(d.id)},h=t.boot_order||[],i=d=>r?.fields?.[d]&&e`<span class="field-error" id=${`${d}-error`}>${r.fields[d]}</span>`;return e`<${C} id="manage-part" title="Name, boot order and deletion">
    <${w} error=${r} />
    <form class="inline-form" onSubmit=${a} aria-label="Rename">
      <${_} key=${t.name} name="name" label="Name" error=${r} required maxlength="63" defaultValue=${t.name} spellcheck="false" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline-form" onSubmit=${c} aria-label="Boot order" key=${h.join(",")}>
      ${["First","Then","Last"].map((d,m)=>e`<label class="field"><span>${d}</span>
        <select name=${`boot${m}`} aria-describedby=${r?.fields?.order?"order-error":void 0}>
          <option value="">${m?"nothing more":"choose a device"}</option>
          ${ge.map(([k,P])=>e`<option value=${k} selected=${h[m]===k}>${P}</option>`)}
        </select></label>`)}
      <button type="submit">Set the boot order</button>
      ${i("order")}
    </form>
    <p class="muted">The boot order applies at the next start.${t.boot_order?` Now: ${t.boot_order.join(", ")}.`:""}</p>
    ${u?e`<p role="status" data-deleting>Deleting the machine…</p>`:e`<${T} name="delete-machine" label="Delete this machine" yes="Yes, delete it"
        question=${`Delete ${t.name}, its disks with it? This cannot be undone.`} onYes=${s} />`}
  <//>`}function be({m:t,act:o,onMachine:p}){let[n,r]=K(),[$,u]=f(null),g=`/api/virt/vms/${encodeURIComponent(t.id)}`;R(()=>{S("GET","/api/virt/nodes?limit=500").then(m=>u(m.items),()=>u([]))},[]);let l=($||[]).filter(m=>m.name!==t.node&&(m.location_id||m.location||"default")===(t.location_id||"default")),a=async m=>{m.preventDefault();let k=new FormData(m.target);await r(()=>o("POST",`${g}/migrate`,{target_node:String(k.get("target_node")),online:k.get("online")==="on"}))},c=(m,k,P)=>r(async()=>p(await S(m,`${g}${k}`,P))),s=async m=>{m.preventDefault();let k=new FormData(m.target);await c("POST","/suspend-billing",{reason:String(k.get("reason")).trim(),action:String(k.get("action"))})},[h,i]=f(!1),d=t.billing_suspension;return e`<${C} id="operate-part" title="Operator">
    <${w} error=${n} />
    <form class="inline-form" onSubmit=${a} aria-label="Migrate">
      <label class="field"><span>Migrate to node</span><select name="target_node" required aria-invalid=${n?.fields?.target_node?"true":void 0}>
        ${l.length===0&&e`<option value="">${$?"no other node":"loading…"}</option>`}
        ${l.map(m=>e`<option value=${m.id||m.name}>${m.name}${m.status!=="online"?` (${m.status})`:""}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="online" defaultChecked=${t.status==="running"} /> Online (the machine keeps running)</label>
      <button type="submit" disabled=${l.length===0}>Migrate</button>
    </form>
    <h3>Billing</h3>
    ${d?e`<p data-billing>Suspended since ${O(d.since)}: ${d.reason} (${d.action}). Its tenant's users can read it but change nothing.</p>
        <div class="inline-form"><label class="check"><input type="checkbox" checked=${h} onChange=${m=>i(m.target.checked)} /> Start it again</label>
        <button type="button" data-unsuspend onClick=${()=>c("POST","/unsuspend-billing",{start:h})}>End the suspension</button></div>`:e`<form class="inline-form" onSubmit=${s} aria-label="Suspend for billing">
        <${_} name="reason" label="Reason (its tenant's users see it)" error=${n} required maxlength="500" />
        <label class="field"><span>A running machine is</span><select name="action">
          <option value="stop">stopped</option><option value="suspend">suspended</option><option value="none">left running</option></select></label>
        <button type="submit">Suspend for billing</button></form>`}
    <h3>Termination</h3>
    ${t.terminate_at?e`<p data-terminate>Marked for deletion with its snapshots and backups at ${O(t.terminate_at)}.</p>
        <button type="button" data-terminate-back onClick=${()=>c("DELETE","/terminate")}>Take the termination back</button>`:e`<${T} name="terminate" label="Terminate" yes="Yes, terminate it"
        question=${`Delete ${t.name} with every snapshot and backup it has, after the grace the server allows?`} onYes=${()=>c("POST","/terminate")} />`}
  <//>`}var ye=H(()=>import("./graphs-3SQVBPFB.js"),"Graphs"),ve=H(()=>import("./terminal-BSGQFQT7.js"),"Console"),ke=H(()=>import("./vnc-7YJN2TCX.js"),"VNC"),q="/api/client/machines";function X({task:t}){if(!t)return null;let o=F.value[t.id]||t;return e`<span class="task" aria-live="polite">${o.type}: <${A} value=${o.status} />${o.error?e` <span class="field-error">${o.error}</span>`:""}</span>`}var _e=[["start","Start",Q],["stop","Stop",W],["shutdown","Shut down",W],["reboot","Reboot",re],["suspend","Suspend",W],["resume","Resume",Q]],Se=[["addresses","Addresses"],["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["manage","Name and deletion"],["operate","Operator"],["tasks","Tasks"]],we=(t,o)=>p=>{let n=`${t}${p}`;return o?`${n}${n.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(o)}`:n};function ht({id:t,admin:o,tenant:p}){let[n,r]=f(null),[$,u]=f([]),[g,l]=f(null),[a,c]=f(null),[s,h]=f(0),[i,d]=f(!1),[m,k]=f(!1),P=`${q}/${encodeURIComponent(t)}`,D=`/api/virt/vms/${encodeURIComponent(t)}`,v=we(P,o?p:""),N=()=>S("GET",v("")).then(b=>{r(b),b.last_task&&c(y=>y||b.last_task)},l);R(()=>{r(null),c(null),l(null),d(!1),k(!1),N(),S("GET",v("/tasks?limit=20")).then(b=>u(b.items),()=>{})},[t,p]),R(()=>V((b,y)=>{b==="machine.updated"&&y.id===t&&r(x=>x&&{...x,...y}),b==="task.updated"&&y.target_id===t&&(u(x=>x.some(E=>E.id===y.id)?x.map(E=>E.id===y.id?y:E):[y,...x]),(y.status==="succeeded"||y.status==="failed")&&(h(x=>x+1),N()))}),[t]);let G=async(b,y,x)=>{let E=await S(b,y.startsWith("/api/")?y:v(y),x);return c(E.task),u(J=>J.some(he=>he.id===E.task.id)?J:[E.task,...J]),E.task},z=async b=>{l(null);try{await G("POST",`/actions/${b}`)}catch(y){l(y)}},B={m:n,at:v,act:G,ended:s};return e`<main id="main">
    <p><a href=${o?"/admin/machines":"/machines"}>← Machines</a></p>
    <${w} error=${g} />
    ${n&&e`<h1>${n.name} <${A} value=${n.status} />${n.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Se.filter(([b])=>(b!=="vnc"||n.display)&&(b!=="operate"||o)).map(([b,y])=>e`<li><a href=${`#${b}`}>${y}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${_e.map(([b,y,x])=>e`<button onClick=${()=>z(b)} data-action=${b}><${x} />${y}</button>`)}
        <${T} name="reset" label="Reset" yes="Yes, reset it" question="Reset the machine at once, as its reset button would (no shutdown)?" onYes=${()=>z("reset")} />
      </div>
      ${a&&e`<p>Last action: <${X} task=${a} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${n.cpu_cores} CPU, ${I(n.memory_mb)} memory, ${U(n.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${n.template_id}</dd>
        <dt>Node</dt><dd>${n.node}</dd>
        <dt>Addresses</dt><dd>${(n.interfaces||[]).flatMap(b=>b.ip_addresses||[]).join(", ")||(n.addresses||[]).map(b=>b.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${n.media?n.media.name:"none"}</dd>
        <dt>Created</dt><dd>${O(n.created_at)}</dd>
      </dl>
      <div id="addresses"><${ce} m=${n} base=${o?D:P} onMachine=${b=>r(y=>({...y,...b}))} /></div>
      <div id="graphs"><${C} id="graphs-part" title="Graphs"><${ye} url=${`${o?D:P}/usage-graphs`} /><//></div>
      <div id="console"><${C} id="console-part" title="Serial console">
        ${i?e`<${ve} url=${`${o?D:P}/console`} /><button type="button" onClick=${()=>d(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>d(!0)}>Open console</button>`}
      <//></div>
      ${n.display&&e`<div id="vnc"><${C} id="vnc-part" title="Graphical console (VNC)">
        ${m?e`<${ke} url=${`${o?D:P}/console`} /><button type="button" onClick=${()=>k(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>k(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${le} ...${B} /></div>
      <div id="snapshots"><${de} ...${B} /></div>
      <div id="media"><${pe} ...${B} /></div>
      <div id="reinstall"><${ue} ...${B} /></div>
      <div id="resize"><${me} ...${B} /></div>
      <div id="manage"><${$e} ...${B} onGone=${()=>se(o?"/admin/machines":"/machines")} /></div>
      ${o&&e`<div id="operate"><${be} ...${B} onMachine=${b=>r(y=>({...y,...b}))} /></div>`}
      <div id="tasks"><${C} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${$.map(b=>F.value[b.id]||b).map(b=>e`<tr key=${b.id}><td>${b.type}</td><td><${A} value=${b.status} /></td><td>${O(b.created_at)}</td><td>${b.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function Mt(){let[t,o]=f(null),[p,n]=f(null),[r,$]=f([""]),u=r[r.length-1];R(()=>{let a=!0;return S("GET",`${q}?limit=50${u?`&cursor=${encodeURIComponent(u)}`:""}`).then(c=>a&&o(c),c=>a&&n(c)),()=>{a=!1}},[u]),R(()=>V((a,c)=>{a!=="machine.updated"&&a!=="machine.deleted"||o(s=>{if(!s)return s;let h=s.items.findIndex(i=>i.id===c.id);return a==="machine.deleted"?h<0?s:{...s,items:s.items.filter(i=>i.id!==c.id)}:h>=0?{...s,items:s.items.map(i=>i.id===c.id?{...i,...c}:i)}:r.length===1?{...s,items:[c,...s.items]}:s})}),[r.length]);let g=a=>o(c=>c&&!c.items.some(s=>s.id===a.machine.id)?{...c,items:[{...a.machine,task_id:a.task.id},...c.items]}:c),l={};for(let a of Object.values(F.value)){let c=l[a.target_id];(!c||c.created_at<a.created_at)&&(l[a.target_id]=a)}return e`<main id="main">
    <h1>Machines</h1>
    <${w} error=${p} />
    <${Ce} onCreated=${g} />
    ${t&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${t.items.map(a=>e`<tr key=${a.id} data-machine=${a.id}>
        <td><a href=${`/machines/${encodeURIComponent(a.id)}`}>${a.name}</a></td>
        <td><${A} value=${a.status} /></td>
        <td>${a.cpu_cores} CPU, ${I(a.memory_mb)}, ${U(a.disk_gb)}</td>
        <td>${l[a.id]?e`<${X} task=${l[a.id]} />`:a.task_id?e`<${X} task=${{id:a.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${t.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>$(r.slice(0,-1))}>Previous</button>
      <button disabled=${!t.next_cursor} onClick=${()=>$([...r,t.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Ce({onCreated:t,admin:o}){let[p,n]=f(null),r=Y(L),$=Y(j),u=Y(o?oe:null),[g,l]=f(!1),[a,c]=f(null),s=$?.items||[],h=o||$&&s.length===0,i=a??(h?"":s[0]?.id||""),d=s.find(v=>v.id===i),m=d?.allowed_templates?.length?new Set(d.allowed_templates):null,k=r&&(m?{...r,items:r.items.filter(v=>m.has(v.id))}:r),P=async v=>{v.preventDefault();let N=new FormData(v.target),G={name:N.get("name"),template_id:N.get("template_id")};if(d)G.plan_id=d.id;else for(let z of["cpu_cores","memory_mb","disk_gb"])N.get(z)&&(G[z]=Number(N.get(z)));n(null);try{t(await S("POST",o?`${q}?tenant_id=${encodeURIComponent(N.get("tenant_id"))}`:q,G)),v.target.reset(),l(!1)}catch(z){n(z)}};if(!g)return e`<button class="primary" onClick=${()=>l(!0)}>New machine</button>`;let D=p?.fields?.plan_id;return e`<form class="card" onSubmit=${P} aria-label="New machine">
    <${w} error=${p||$?.error||u?.error} />
    <div class="grid">
      <${_} name="name" label="Name" error=${p} required />
      ${o&&e`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(u?.items||[]).map(v=>e`<option value=${v.id}>${v.name}</option>`)}</select></label>`}
      ${s.length>0&&e`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${i} onChange=${v=>c(v.target.value)} aria-invalid=${D?"true":void 0} aria-describedby=${D?"plan_id-error":void 0}>
          ${h&&e`<option value="">custom sizes</option>`}
          ${s.map(v=>e`<option value=${v.id}>${v.name}: ${v.cpu_cores} CPU, ${I(v.memory_mb)}, ${U(v.disk_gb)}</option>`)}
        </select>${D&&e`<span class="field-error" id="plan_id-error">${D}</span>`}</label>`}
      <${te} key=${i} templates=${k} error=${p} />
      ${d?e`<p class="muted" data-plan-sizes>${d.cpu_cores} CPU, ${I(d.memory_mb)}, ${U(d.disk_gb)} from the plan</p>`:h&&e`
          <${_} name="cpu_cores" label="CPU cores" error=${p} type="number" min="1" />
          <${_} name="memory_mb" label="Memory (MB)" error=${p} type="number" min="1" />
          <${_} name="disk_gb" label="Disk (GB)" error=${p} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
  </form>`}export{Pe as a,Te as b,xe as c,Re as d,De as e,Ee as f,Oe as g,Ne as h,ze as i,Ie as j,Ue as k,Ye as l,Be as m,ht as n,Mt as o,Ce as p};
