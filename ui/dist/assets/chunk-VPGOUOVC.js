import{a as G,b as F}from"./chunk-6VEEHQP2.js";import{a as V}from"./chunk-DWKZJOBD.js";import{a as E,c as L,d as j,e as Z,f as ee}from"./chunk-VZOWYPFL.js";import{a as D}from"./chunk-6PNQ3PEV.js";import{a as $,b as T,k as P,m as R,n as x,o as U,p as B,q as M,r as k,s as X,t as S}from"./chunk-FIHVQ2RM.js";import{g as s}from"./chunk-XGWGEZEQ.js";var y=t=>()=>s`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${t} /></svg>`,ge=y("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),ke=y("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),te=y("M7 4l13 8-13 8z"),W=y("M6 6h12v12H6z"),se=y("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),ye=y("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),ve=y("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),_e=y("M4 18a8 8 0 1 1 16 0M12 18l4-6"),Me=y("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Se=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),we=y("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Ce=y("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Pe=y("M3 12h4l3-7 4 14 3-7h4"),Te=y("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01");function oe(t,n){let[l,o]=$(null),[r,m]=$(null);return T(()=>{let p=!0;return P("GET",t).then(h=>{p&&(o(h),m(null))},h=>p&&m(h)),()=>{p=!1}},[t,n]),[l,r]}function ae({at:t,act:n,ended:l}){let[o,r]=oe(t("/backups?limit=100"),l),[m,p]=$(null),[h,i]=$(!0),a=async e=>{p(null);try{return await e(),!0}catch(u){return p(u),!1}};return s`<${S} id="backups-part" title="Backups">
    <${M} error=${m||r} />
    <form class="inline-form" onSubmit=${async e=>{e.preventDefault();let u=new FormData(e.target),f={mode:u.get("mode")};u.get("note")&&(f.note=u.get("note")),await a(()=>n("POST","/backups",f))&&e.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${k} name="note" label="Note (optional)" error=${m} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${h} onChange=${e=>i(e.target.checked)} /> Start the machine after a restore</label>
    ${o&&(o.items.length===0?s`<p>No backups yet.</p>`:s`<div class="table-wrap"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${o.items.map(e=>s`<tr key=${e.id} data-backup=${e.id}>
        <td>${U(e.created_at)}</td><td>${X(e.size_bytes)}</td><td>${e.mode}</td><td>${e.origin}</td><td>${e.note||""}</td>
        <td><${D} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>a(()=>n("POST",`/backups/${encodeURIComponent(e.id)}/restore`,{start_after:h}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ne({m:t,at:n,act:l,ended:o}){let[r,m]=oe(n("/snapshots?limit=200"),o),[p,h]=$(null),i=async e=>{h(null);try{return await e(),!0}catch(u){return h(u),!1}},a=async e=>{e.preventDefault();let u=new FormData(e.target),f={name:u.get("name")};u.get("description")&&(f.description=u.get("description")),u.get("include_memory")&&(f.include_memory=!0),await i(()=>l("POST","/snapshots",f))&&e.target.reset()},c=e=>`/snapshots/${encodeURIComponent(e.name)}`;return s`<${S} id="snapshots-part" title="Snapshots">
    <${M} error=${p||m} />
    <form class="inline-form" onSubmit=${a} aria-label="Take a snapshot">
      <${k} name="name" label="Name" error=${p} required />
      <${k} name="description" label="Description (optional)" error=${p} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${t.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${r&&(r.items.length===0?s`<p>No snapshots.</p>`:s`<div class="table-wrap"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${r.items.map(e=>s`<tr key=${e.name} data-snapshot=${e.name}>
        <td>${e.name}</td><td>${U(e.created_at)}</td><td>${e.includes_memory?"yes":"no"}</td><td>${e.description||""}</td>
        <td class="row-actions">
          <${D} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${e.name}? Changes since it are lost.`}
            onYes=${()=>i(()=>l("POST",`${c(e)}/rollback`))} />
          <${D} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${e.name}?`}
            onYes=${()=>i(()=>l("DELETE",c(e)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function K(){let[t,n]=$(null);return[t,async o=>{n(null);try{return await o(),!0}catch(r){return n(r),!1}}]}function re({m:t,act:n}){let l=E(ee),[o,r]=K(),[m,p]=$(""),h=(l?.items||[]).filter(i=>i.status==="ready");return s`<${S} id="media-part" title="ISO and rescue">
    <${M} error=${o||l?.error} />
    <p>In the CD-ROM drive: <strong data-media>${t.media?t.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${i=>p(i.target.value)} aria-describedby=${o?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${l?h.length?"choose an image":"no image is ready":"loading…"}</option>
          ${h.map(i=>s`<option value=${i.id}>${i.name}</option>`)}
        </select>
        ${o?.fields?.iso_id&&s`<span class="field-error" id="iso_id-error">${o.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!m||t.rescue} onClick=${()=>r(()=>n("POST","/media",{iso_id:m}))}>Mount</button>
      <button type="button" disabled=${!t.media||t.rescue} onClick=${()=>r(()=>n("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${t.rescue?"on":"off"}</strong>.</p>
    ${t.rescue?s`<${D} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>r(()=>n("POST","/rescue",{enabled:!1}))} />`:s`<${D} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>r(()=>n("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ie({m:t,act:n}){let l=E(L),[o,r]=K(),[m,p]=$(null),h=a=>{a.preventDefault(),p(a.target)},i=async()=>{let a=new FormData(m),c={template_id:a.get("template_id")};a.get("password")&&(c.password=a.get("password"));let e=String(a.get("ssh_keys")||"").split(`
`).map(u=>u.trim()).filter(Boolean);e.length&&(c.ssh_keys=e),await r(()=>n("POST","/reinstall",c))&&m.reset(),p(null)};return s`<${S} id="reinstall-part" title="Reinstall">
    <${M} error=${o||l?.error} />
    <form onSubmit=${h} aria-label="Reinstall">
      <div class="grid">
        <${Q} templates=${l} error=${o} value=${t.template_id} />
        <${k} name="password" label="New root password (optional)" error=${o} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?s`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${a=>a?.focus()} onClick=${i}>Yes, reinstall</button>
            <button type="button" onClick=${()=>p(null)}>Cancel</button></p>`:s`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function Q({templates:t,error:n,value:l}){let o=n?.fields?.template_id;return s`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${o?"true":void 0} aria-describedby=${o?"template_id-error":void 0}>
      ${!t&&s`<option value="">loading…</option>`}
      ${(t?.items||[]).map(r=>s`<option value=${r.id} selected=${r.id===l}>${r.name}${r.disk_gb?` (at least ${r.disk_gb} GB)`:""}</option>`)}
    </select>
    ${o&&s`<span class="field-error" id="template_id-error">${o}</span>`}
  </label>`}var J=t=>n=>{n&&!n.dataset.filled&&(n.value=t,n.dataset.filled="1")};function le({m:t,act:n}){let l=E(j),[o,r]=K(),[m,p]=$(""),h=async i=>{i.preventDefault();let a=new FormData(i.target),c={};for(let e of["cpu_cores","memory_mb","disk_gb"]){let u=Number(a.get(e));a.get(e)&&u!==t[e]&&(c[e]=u)}Object.keys(c).length&&await r(()=>n("PATCH","/resources",c))};return s`<${S} id="resize-part" title="Resize">
    <${M} error=${o||l?.error} />
    ${l?.items?.length>0&&s`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${i=>p(i.target.value)}>
        <option value="">choose a plan</option>
        ${l.items.map(i=>s`<option value=${i.id}>${i.name}: ${i.cpu_cores} CPU, ${R(i.memory_mb)}, ${x(i.disk_gb)}${i.id===t.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>r(()=>n("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${t.cpu_cores}/${t.memory_mb}/${t.disk_gb}`} onSubmit=${h} aria-label="Resize">
      <div class="grid">
        <${k} name="cpu_cores" label="CPU cores" error=${o} type="number" min="1" inputRef=${J(t.cpu_cores)} />
        <${k} name="memory_mb" label="Memory (MB)" error=${o} type="number" min="1" inputRef=${J(t.memory_mb)} />
        <${k} name="disk_gb" label="Disk (GB, only grows)" error=${o} type="number" min=${t.disk_gb} inputRef=${J(t.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var pe=V(()=>import("./graphs-5XGK7KGY.js"),"Graphs"),me=V(()=>import("./terminal-RU4E4B4N.js"),"Console"),Y="/api/client/machines";function A({task:t}){if(!t)return null;let n=G.value[t.id]||t;return s`<span class="task" aria-live="polite">${n.type}: <${B} value=${n.status} />${n.error?s` <span class="field-error">${n.error}</span>`:""}</span>`}var ue=[["start","Start",te],["stop","Stop",W],["shutdown","Shut down",W],["reboot","Reboot",se]],$e=[["graphs","Graphs"],["console","Console"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],he=(t,n)=>l=>{let o=`${t}${l}`;return n?`${o}${o.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(n)}`:o};function Je({id:t,admin:n,tenant:l}){let[o,r]=$(null),[m,p]=$([]),[h,i]=$(null),[a,c]=$(null),[e,u]=$(0),[f,v]=$(!1),I=`${Y}/${encodeURIComponent(t)}`,q=`/api/virt/vms/${encodeURIComponent(t)}`,N=he(I,n?l:""),z=()=>P("GET",N("")).then(d=>{r(d),d.last_task&&c(g=>g||d.last_task)},i);T(()=>{r(null),c(null),i(null),v(!1),z(),P("GET",N("/tasks?limit=20")).then(d=>p(d.items),()=>{})},[t,l]),T(()=>F((d,g)=>{d==="machine.updated"&&g.id===t&&r(_=>_&&{..._,...g}),d==="task.updated"&&g.target_id===t&&(p(_=>_.some(C=>C.id===g.id)?_.map(C=>C.id===g.id?g:C):[g,..._]),(g.status==="succeeded"||g.status==="failed")&&(u(_=>_+1),z()))}),[t]);let b=async(d,g,_)=>{let C=await P(d,N(g),_);return c(C.task),p(H=>H.some(ce=>ce.id===C.task.id)?H:[C.task,...H]),C.task},O=async d=>{i(null);try{await b("POST",`/actions/${d}`)}catch(g){i(g)}},w={m:o,at:N,act:b,ended:e};return s`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${M} error=${h} />
    ${o&&s`<h1>${o.name} <${B} value=${o.status} />${o.rescue?s` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${$e.map(([d,g])=>s`<li><a href=${`#${d}`}>${g}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${ue.map(([d,g,_])=>s`<button onClick=${()=>O(d)} data-action=${d}><${_} />${g}</button>`)}
      </div>
      ${a&&s`<p>Last action: <${A} task=${a} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${o.cpu_cores} CPU, ${R(o.memory_mb)} memory, ${x(o.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${o.template_id}</dd>
        <dt>Node</dt><dd>${o.node}</dd>
        <dt>Addresses</dt><dd>${(o.interfaces||[]).flatMap(d=>d.ip_addresses||[]).join(", ")||(o.addresses||[]).map(d=>d.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${o.media?o.media.name:"none"}</dd>
        <dt>Created</dt><dd>${U(o.created_at)}</dd>
      </dl>
      <div id="graphs"><${S} id="graphs-part" title="Graphs"><${pe} url=${`${n?q:I}/usage-graphs`} /><//></div>
      <div id="console"><${S} id="console-part" title="Serial console">
        ${f?s`<${me} url=${`${n?q:I}/console`} /><button type="button" onClick=${()=>v(!1)}>Close console</button>`:s`<button type="button" onClick=${()=>v(!0)}>Open console</button>`}
      <//></div>
      <div id="backups"><${ae} ...${w} /></div>
      <div id="snapshots"><${ne} ...${w} /></div>
      <div id="media"><${re} ...${w} /></div>
      <div id="reinstall"><${ie} ...${w} /></div>
      <div id="resize"><${le} ...${w} /></div>
      <div id="tasks"><${S} id="tasks-part" title="Tasks">
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(d=>G.value[d.id]||d).map(d=>s`<tr key=${d.id}><td>${d.type}</td><td><${B} value=${d.status} /></td><td>${U(d.created_at)}</td><td>${d.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function nt(){let[t,n]=$(null),[l,o]=$(null),[r,m]=$([""]),p=r[r.length-1];T(()=>{let a=!0;return P("GET",`${Y}?limit=50${p?`&cursor=${encodeURIComponent(p)}`:""}`).then(c=>a&&n(c),c=>a&&o(c)),()=>{a=!1}},[p]),T(()=>F((a,c)=>{a!=="machine.updated"&&a!=="machine.deleted"||n(e=>{if(!e)return e;let u=e.items.findIndex(f=>f.id===c.id);return a==="machine.deleted"?u<0?e:{...e,items:e.items.filter(f=>f.id!==c.id)}:u>=0?{...e,items:e.items.map(f=>f.id===c.id?{...f,...c}:f)}:r.length===1?{...e,items:[c,...e.items]}:e})}),[r.length]);let h=a=>n(c=>c&&!c.items.some(e=>e.id===a.machine.id)?{...c,items:[{...a.machine,task_id:a.task.id},...c.items]}:c),i={};for(let a of Object.values(G.value)){let c=i[a.target_id];(!c||c.created_at<a.created_at)&&(i[a.target_id]=a)}return s`<main id="main">
    <h1>Machines</h1>
    <${M} error=${l} />
    <${be} onCreated=${h} />
    ${t&&s`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${t.items.map(a=>s`<tr key=${a.id} data-machine=${a.id}>
        <td><a href=${`/machines/${encodeURIComponent(a.id)}`}>${a.name}</a></td>
        <td><${B} value=${a.status} /></td>
        <td>${a.cpu_cores} CPU, ${R(a.memory_mb)}, ${x(a.disk_gb)}</td>
        <td>${i[a.id]?s`<${A} task=${i[a.id]} />`:a.task_id?s`<${A} task=${{id:a.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${t.items.length===0&&s`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>m(r.slice(0,-1))}>Previous</button>
      <button disabled=${!t.next_cursor} onClick=${()=>m([...r,t.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function be({onCreated:t,admin:n}){let[l,o]=$(null),r=E(L),m=E(j),p=E(n?Z:null),[h,i]=$(!1),[a,c]=$(null),e=m?.items||[],u=n||m&&e.length===0,f=a??(u?"":e[0]?.id||""),v=e.find(b=>b.id===f),I=v?.allowed_templates?.length?new Set(v.allowed_templates):null,q=r&&(I?{...r,items:r.items.filter(b=>I.has(b.id))}:r),N=async b=>{b.preventDefault();let O=new FormData(b.target),w={name:O.get("name"),template_id:O.get("template_id")};if(v)w.plan_id=v.id;else for(let d of["cpu_cores","memory_mb","disk_gb"])O.get(d)&&(w[d]=Number(O.get(d)));o(null);try{t(await P("POST",n?`${Y}?tenant_id=${encodeURIComponent(O.get("tenant_id"))}`:Y,w)),b.target.reset(),i(!1)}catch(d){o(d)}};if(!h)return s`<button class="primary" onClick=${()=>i(!0)}>New machine</button>`;let z=l?.fields?.plan_id;return s`<form class="card" onSubmit=${N} aria-label="New machine">
    <${M} error=${l||m?.error||p?.error} />
    <div class="grid">
      <${k} name="name" label="Name" error=${l} required />
      ${n&&s`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(p?.items||[]).map(b=>s`<option value=${b.id}>${b.name}</option>`)}</select></label>`}
      ${e.length>0&&s`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${f} onChange=${b=>c(b.target.value)} aria-invalid=${z?"true":void 0} aria-describedby=${z?"plan_id-error":void 0}>
          ${u&&s`<option value="">custom sizes</option>`}
          ${e.map(b=>s`<option value=${b.id}>${b.name}: ${b.cpu_cores} CPU, ${R(b.memory_mb)}, ${x(b.disk_gb)}</option>`)}
        </select>${z&&s`<span class="field-error" id="plan_id-error">${z}</span>`}</label>`}
      <${Q} key=${f} templates=${q} error=${l} />
      ${v?s`<p class="muted" data-plan-sizes>${v.cpu_cores} CPU, ${R(v.memory_mb)}, ${x(v.disk_gb)} from the plan</p>`:u&&s`
          <${k} name="cpu_cores" label="CPU cores" error=${l} type="number" min="1" />
          <${k} name="memory_mb" label="Memory (MB)" error=${l} type="number" min="1" />
          <${k} name="disk_gb" label="Disk (GB)" error=${l} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>i(!1)}>Cancel</button>
  </form>`}export{ge as a,ke as b,ye as c,ve as d,_e as e,Me as f,Se as g,we as h,Ce as i,Pe as j,Te as k,Je as l,nt as m,be as n};
