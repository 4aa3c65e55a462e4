import{a as W}from"./chunk-DWKZJOBD.js";import{a as E,c as L,d as j,e as ne,f as re}from"./chunk-VZOWYPFL.js";import{a as D}from"./chunk-6PNQ3PEV.js";import{a as $,b as T,e as ee,f as te,g as se,k as P,l as oe,m as R,n as x,o as B,p as G,q as _,r as k,s as ae,t as w}from"./chunk-FIHVQ2RM.js";import{g as s}from"./chunk-XGWGEZEQ.js";var J=new Set,I=ee({});function A(t){return J.add(t),()=>J.delete(t)}var Y=null;te(()=>{let t=!!se.value;t&&!Y?Y=oe((n,i)=>{n==="task.updated"&&(I.value={...I.value,[i.id]:i});for(let o of J)o(n,i)}):!t&&Y&&(Y(),Y=null)});var S=t=>()=>s`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${t} /></svg>`,Pe=S("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),Te=S("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),ie=S("M7 4l13 8-13 8z"),K=S("M6 6h12v12H6z"),le=S("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Re=S("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),xe=S("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Ee=S("M4 18a8 8 0 1 1 16 0M12 18l4-6"),ze=S("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Oe=S("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),De=S("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Ie=S("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10");function ce(t,n){let[i,o]=$(null),[r,m]=$(null);return T(()=>{let p=!0;return P("GET",t).then(b=>{p&&(o(b),m(null))},b=>p&&m(b)),()=>{p=!1}},[t,n]),[i,r]}function de({at:t,act:n,ended:i}){let[o,r]=ce(t("/backups?limit=100"),i),[m,p]=$(null),[b,l]=$(!0),a=async e=>{p(null);try{return await e(),!0}catch(u){return p(u),!1}};return s`<${w} id="backups-part" title="Backups">
    <${_} error=${m||r} />
    <form class="inline-form" onSubmit=${async e=>{e.preventDefault();let u=new FormData(e.target),f={mode:u.get("mode")};u.get("note")&&(f.note=u.get("note")),await a(()=>n("POST","/backups",f))&&e.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${k} name="note" label="Note (optional)" error=${m} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${b} onChange=${e=>l(e.target.checked)} /> Start the machine after a restore</label>
    ${o&&(o.items.length===0?s`<p>No backups yet.</p>`:s`<div class="table-wrap"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${o.items.map(e=>s`<tr key=${e.id} data-backup=${e.id}>
        <td>${B(e.created_at)}</td><td>${ae(e.size_bytes)}</td><td>${e.mode}</td><td>${e.origin}</td><td>${e.note||""}</td>
        <td><${D} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>a(()=>n("POST",`/backups/${encodeURIComponent(e.id)}/restore`,{start_after:b}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function pe({m:t,at:n,act:i,ended:o}){let[r,m]=ce(n("/snapshots?limit=200"),o),[p,b]=$(null),l=async e=>{b(null);try{return await e(),!0}catch(u){return b(u),!1}},a=async e=>{e.preventDefault();let u=new FormData(e.target),f={name:u.get("name")};u.get("description")&&(f.description=u.get("description")),u.get("include_memory")&&(f.include_memory=!0),await l(()=>i("POST","/snapshots",f))&&e.target.reset()},c=e=>`/snapshots/${encodeURIComponent(e.name)}`;return s`<${w} id="snapshots-part" title="Snapshots">
    <${_} error=${p||m} />
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
        <td>${e.name}</td><td>${B(e.created_at)}</td><td>${e.includes_memory?"yes":"no"}</td><td>${e.description||""}</td>
        <td class="row-actions">
          <${D} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${e.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>i("POST",`${c(e)}/rollback`))} />
          <${D} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${e.name}?`}
            onYes=${()=>l(()=>i("DELETE",c(e)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function X(){let[t,n]=$(null);return[t,async o=>{n(null);try{return await o(),!0}catch(r){return n(r),!1}}]}function me({m:t,act:n}){let i=E(re),[o,r]=X(),[m,p]=$(""),b=(i?.items||[]).filter(l=>l.status==="ready");return s`<${w} id="media-part" title="ISO and rescue">
    <${_} error=${o||i?.error} />
    <p>In the CD-ROM drive: <strong data-media>${t.media?t.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${m} onChange=${l=>p(l.target.value)} aria-describedby=${o?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${i?b.length?"choose an image":"no image is ready":"loading…"}</option>
          ${b.map(l=>s`<option value=${l.id}>${l.name}</option>`)}
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
  <//>`}function ue({m:t,act:n}){let i=E(L),[o,r]=X(),[m,p]=$(null),b=a=>{a.preventDefault(),p(a.target)},l=async()=>{let a=new FormData(m),c={template_id:a.get("template_id")};a.get("password")&&(c.password=a.get("password"));let e=String(a.get("ssh_keys")||"").split(`
`).map(u=>u.trim()).filter(Boolean);e.length&&(c.ssh_keys=e),await r(()=>n("POST","/reinstall",c))&&m.reset(),p(null)};return s`<${w} id="reinstall-part" title="Reinstall">
    <${_} error=${o||i?.error} />
    <form onSubmit=${b} aria-label="Reinstall">
      <div class="grid">
        <${Z} templates=${i} error=${o} value=${t.template_id} />
        <${k} name="password" label="New root password (optional)" error=${o} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${m?s`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${a=>a?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>p(null)}>Cancel</button></p>`:s`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function Z({templates:t,error:n,value:i}){let o=n?.fields?.template_id;return s`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${o?"true":void 0} aria-describedby=${o?"template_id-error":void 0}>
      ${!t&&s`<option value="">loading…</option>`}
      ${(t?.items||[]).map(r=>s`<option value=${r.id} selected=${r.id===i}>${r.name}${r.disk_gb?` (at least ${r.disk_gb} GB)`:""}</option>`)}
    </select>
    ${o&&s`<span class="field-error" id="template_id-error">${o}</span>`}
  </label>`}var Q=t=>n=>{n&&!n.dataset.filled&&(n.value=t,n.dataset.filled="1")};function $e({m:t,act:n}){let i=E(j),[o,r]=X(),[m,p]=$(""),b=async l=>{l.preventDefault();let a=new FormData(l.target),c={};for(let e of["cpu_cores","memory_mb","disk_gb"]){let u=Number(a.get(e));a.get(e)&&u!==t[e]&&(c[e]=u)}Object.keys(c).length&&await r(()=>n("PATCH","/resources",c))};return s`<${w} id="resize-part" title="Resize">
    <${_} error=${o||i?.error} />
    ${i?.items?.length>0&&s`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${m} onChange=${l=>p(l.target.value)}>
        <option value="">choose a plan</option>
        ${i.items.map(l=>s`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${R(l.memory_mb)}, ${x(l.disk_gb)}${l.id===t.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!m} onClick=${()=>r(()=>n("POST","/plan",{plan_id:m}))}>Move to plan</button>
    </div>`}
    <form key=${`${t.cpu_cores}/${t.memory_mb}/${t.disk_gb}`} onSubmit=${b} aria-label="Resize">
      <div class="grid">
        <${k} name="cpu_cores" label="CPU cores" error=${o} type="number" min="1" inputRef=${Q(t.cpu_cores)} />
        <${k} name="memory_mb" label="Memory (MB)" error=${o} type="number" min="1" inputRef=${Q(t.memory_mb)} />
        <${k} name="disk_gb" label="Disk (GB, only grows)" error=${o} type="number" min=${t.disk_gb} inputRef=${Q(t.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var fe=W(()=>import("./graphs-5XGK7KGY.js"),"Graphs"),ge=W(()=>import("./terminal-RU4E4B4N.js"),"Console"),q="/api/client/machines";function H({task:t}){if(!t)return null;let n=I.value[t.id]||t;return s`<span class="task" aria-live="polite">${n.type}: <${G} value=${n.status} />${n.error?s` <span class="field-error">${n.error}</span>`:""}</span>`}var ke=[["start","Start",ie],["stop","Stop",K],["shutdown","Shut down",K],["reboot","Reboot",le]],ye=[["graphs","Graphs"],["console","Console"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],ve=(t,n)=>i=>{let o=`${t}${i}`;return n?`${o}${o.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(n)}`:o};function st({id:t,admin:n,tenant:i}){let[o,r]=$(null),[m,p]=$([]),[b,l]=$(null),[a,c]=$(null),[e,u]=$(0),[f,y]=$(!1),N=`${q}/${encodeURIComponent(t)}`,F=`/api/virt/vms/${encodeURIComponent(t)}`,U=ve(N,n?i:""),z=()=>P("GET",U("")).then(d=>{r(d),d.last_task&&c(g=>g||d.last_task)},l);T(()=>{r(null),c(null),l(null),y(!1),z(),P("GET",U("/tasks?limit=20")).then(d=>p(d.items),()=>{})},[t,i]),T(()=>A((d,g)=>{d==="machine.updated"&&g.id===t&&r(v=>v&&{...v,...g}),d==="task.updated"&&g.target_id===t&&(p(v=>v.some(M=>M.id===g.id)?v.map(M=>M.id===g.id?g:M):[g,...v]),(g.status==="succeeded"||g.status==="failed")&&(u(v=>v+1),z()))}),[t]);let h=async(d,g,v)=>{let M=await P(d,U(g),v);return c(M.task),p(V=>V.some(be=>be.id===M.task.id)?V:[M.task,...V]),M.task},O=async d=>{l(null);try{await h("POST",`/actions/${d}`)}catch(g){l(g)}},C={m:o,at:U,act:h,ended:e};return s`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${_} error=${b} />
    ${o&&s`<h1>${o.name} <${G} value=${o.status} />${o.rescue?s` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${ye.map(([d,g])=>s`<li><a href=${`#${d}`}>${g}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${ke.map(([d,g,v])=>s`<button onClick=${()=>O(d)} data-action=${d}><${v} />${g}</button>`)}
      </div>
      ${a&&s`<p>Last action: <${H} task=${a} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${o.cpu_cores} CPU, ${R(o.memory_mb)} memory, ${x(o.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${o.template_id}</dd>
        <dt>Node</dt><dd>${o.node}</dd>
        <dt>Addresses</dt><dd>${(o.interfaces||[]).flatMap(d=>d.ip_addresses||[]).join(", ")||(o.addresses||[]).map(d=>d.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${o.media?o.media.name:"none"}</dd>
        <dt>Created</dt><dd>${B(o.created_at)}</dd>
      </dl>
      <div id="graphs"><${w} id="graphs-part" title="Graphs"><${fe} url=${`${n?F:N}/usage-graphs`} /><//></div>
      <div id="console"><${w} id="console-part" title="Serial console">
        ${f?s`<${ge} url=${`${n?F:N}/console`} /><button type="button" onClick=${()=>y(!1)}>Close console</button>`:s`<button type="button" onClick=${()=>y(!0)}>Open console</button>`}
      <//></div>
      <div id="backups"><${de} ...${C} /></div>
      <div id="snapshots"><${pe} ...${C} /></div>
      <div id="media"><${me} ...${C} /></div>
      <div id="reinstall"><${ue} ...${C} /></div>
      <div id="resize"><${$e} ...${C} /></div>
      <div id="tasks"><${w} id="tasks-part" title="Tasks">
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${m.map(d=>I.value[d.id]||d).map(d=>s`<tr key=${d.id}><td>${d.type}</td><td><${G} value=${d.status} /></td><td>${B(d.created_at)}</td><td>${d.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function mt(){let[t,n]=$(null),[i,o]=$(null),[r,m]=$([""]),p=r[r.length-1];T(()=>{let a=!0;return P("GET",`${q}?limit=50${p?`&cursor=${encodeURIComponent(p)}`:""}`).then(c=>a&&n(c),c=>a&&o(c)),()=>{a=!1}},[p]),T(()=>A((a,c)=>{a!=="machine.updated"&&a!=="machine.deleted"||n(e=>{if(!e)return e;let u=e.items.findIndex(f=>f.id===c.id);return a==="machine.deleted"?u<0?e:{...e,items:e.items.filter(f=>f.id!==c.id)}:u>=0?{...e,items:e.items.map(f=>f.id===c.id?{...f,...c}:f)}:r.length===1?{...e,items:[c,...e.items]}:e})}),[r.length]);let b=a=>n(c=>c&&!c.items.some(e=>e.id===a.machine.id)?{...c,items:[{...a.machine,task_id:a.task.id},...c.items]}:c),l={};for(let a of Object.values(I.value)){let c=l[a.target_id];(!c||c.created_at<a.created_at)&&(l[a.target_id]=a)}return s`<main id="main">
    <h1>Machines</h1>
    <${_} error=${i} />
    <${_e} onCreated=${b} />
    ${t&&s`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${t.items.map(a=>s`<tr key=${a.id} data-machine=${a.id}>
        <td><a href=${`/machines/${encodeURIComponent(a.id)}`}>${a.name}</a></td>
        <td><${G} value=${a.status} /></td>
        <td>${a.cpu_cores} CPU, ${R(a.memory_mb)}, ${x(a.disk_gb)}</td>
        <td>${l[a.id]?s`<${H} task=${l[a.id]} />`:a.task_id?s`<${H} task=${{id:a.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${t.items.length===0&&s`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>m(r.slice(0,-1))}>Previous</button>
      <button disabled=${!t.next_cursor} onClick=${()=>m([...r,t.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function _e({onCreated:t,admin:n}){let[i,o]=$(null),r=E(L),m=E(j),p=E(n?ne:null),[b,l]=$(!1),[a,c]=$(null),e=m?.items||[],u=n||m&&e.length===0,f=a??(u?"":e[0]?.id||""),y=e.find(h=>h.id===f),N=y?.allowed_templates?.length?new Set(y.allowed_templates):null,F=r&&(N?{...r,items:r.items.filter(h=>N.has(h.id))}:r),U=async h=>{h.preventDefault();let O=new FormData(h.target),C={name:O.get("name"),template_id:O.get("template_id")};if(y)C.plan_id=y.id;else for(let d of["cpu_cores","memory_mb","disk_gb"])O.get(d)&&(C[d]=Number(O.get(d)));o(null);try{t(await P("POST",n?`${q}?tenant_id=${encodeURIComponent(O.get("tenant_id"))}`:q,C)),h.target.reset(),l(!1)}catch(d){o(d)}};if(!b)return s`<button class="primary" onClick=${()=>l(!0)}>New machine</button>`;let z=i?.fields?.plan_id;return s`<form class="card" onSubmit=${U} aria-label="New machine">
    <${_} error=${i||m?.error||p?.error} />
    <div class="grid">
      <${k} name="name" label="Name" error=${i} required />
      ${n&&s`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(p?.items||[]).map(h=>s`<option value=${h.id}>${h.name}</option>`)}</select></label>`}
      ${e.length>0&&s`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${f} onChange=${h=>c(h.target.value)} aria-invalid=${z?"true":void 0} aria-describedby=${z?"plan_id-error":void 0}>
          ${u&&s`<option value="">custom sizes</option>`}
          ${e.map(h=>s`<option value=${h.id}>${h.name}: ${h.cpu_cores} CPU, ${R(h.memory_mb)}, ${x(h.disk_gb)}</option>`)}
        </select>${z&&s`<span class="field-error" id="plan_id-error">${z}</span>`}</label>`}
      <${Z} key=${f} templates=${F} error=${i} />
      ${y?s`<p class="muted" data-plan-sizes>${y.cpu_cores} CPU, ${R(y.memory_mb)}, ${x(y.disk_gb)} from the plan</p>`:u&&s`
          <${k} name="cpu_cores" label="CPU cores" error=${i} type="number" min="1" />
          <${k} name="memory_mb" label="Memory (MB)" error=${i} type="number" min="1" />
          <${k} name="disk_gb" label="Disk (GB)" error=${i} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>l(!1)}>Cancel</button>
  </form>`}export{A as a,Pe as b,Te as c,Re as d,xe as e,Ee as f,ze as g,Oe as h,De as i,Ie as j,st as k,mt as l,_e as m};
