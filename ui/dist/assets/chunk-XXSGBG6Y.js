import{a as V,b as L}from"./chunk-NOVTYDXA.js";import{a as E,c as j,d as A,e as te,f as se}from"./chunk-2POUUWF6.js";import{a as H}from"./chunk-FERSF4KL.js";import{a as D}from"./chunk-HQUNSCRM.js";import{a as $,b as x,k as w,m as R,n as O,o as U,p as B,q as C,r as k,s as ee,t as M}from"./chunk-GBUNNUYN.js";import{g as t}from"./chunk-XGWGEZEQ.js";var y=s=>()=>t`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${s} /></svg>`,ve=y("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),_e=y("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),oe=y("M7 4l13 8-13 8z"),K=y("M6 6h12v12H6z"),ae=y("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),Ce=y("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),Me=y("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),Se=y("M4 18a8 8 0 1 1 16 0M12 18l4-6"),we=y("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),Pe=y("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),Te=y("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),xe=y("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10"),Re=y("M3 12h4l3-7 4 14 3-7h4"),Oe=y("M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01");function ne(s,n){let[l,o]=$(null),[r,u]=$(null);return x(()=>{let p=!0;return w("GET",s).then(h=>{p&&(o(h),u(null))},h=>p&&u(h)),()=>{p=!1}},[s,n]),[l,r]}function re({at:s,act:n,ended:l}){let[o,r]=ne(s("/backups?limit=100"),l),[u,p]=$(null),[h,i]=$(!0),a=async e=>{p(null);try{return await e(),!0}catch(m){return p(m),!1}};return t`<${M} id="backups-part" title="Backups">
    <${C} error=${u||r} />
    <form class="inline-form" onSubmit=${async e=>{e.preventDefault();let m=new FormData(e.target),f={mode:m.get("mode")};m.get("note")&&(f.note=m.get("note")),await a(()=>n("POST","/backups",f))&&e.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${k} name="note" label="Note (optional)" error=${u} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${h} onChange=${e=>i(e.target.checked)} /> Start the machine after a restore</label>
    ${o&&(o.items.length===0?t`<p>No backups yet.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${o.items.map(e=>t`<tr key=${e.id} data-backup=${e.id}>
        <td>${U(e.created_at)}</td><td>${ee(e.size_bytes)}</td><td>${e.mode}</td><td>${e.origin}</td><td>${e.note||""}</td>
        <td><${D} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>a(()=>n("POST",`/backups/${encodeURIComponent(e.id)}/restore`,{start_after:h}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ie({m:s,at:n,act:l,ended:o}){let[r,u]=ne(n("/snapshots?limit=200"),o),[p,h]=$(null),i=async e=>{h(null);try{return await e(),!0}catch(m){return h(m),!1}},a=async e=>{e.preventDefault();let m=new FormData(e.target),f={name:m.get("name")};m.get("description")&&(f.description=m.get("description")),m.get("include_memory")&&(f.include_memory=!0),await i(()=>l("POST","/snapshots",f))&&e.target.reset()},c=e=>`/snapshots/${encodeURIComponent(e.name)}`;return t`<${M} id="snapshots-part" title="Snapshots">
    <${C} error=${p||u} />
    <form class="inline-form" onSubmit=${a} aria-label="Take a snapshot">
      <${k} name="name" label="Name" error=${p} required />
      <${k} name="description" label="Description (optional)" error=${p} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${s.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${r&&(r.items.length===0?t`<p>No snapshots.</p>`:t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${r.items.map(e=>t`<tr key=${e.name} data-snapshot=${e.name}>
        <td>${e.name}</td><td>${U(e.created_at)}</td><td>${e.includes_memory?"yes":"no"}</td><td>${e.description||""}</td>
        <td class="row-actions">
          <${D} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${e.name}? Changes since it are lost.`}
            onYes=${()=>i(()=>l("POST",`${c(e)}/rollback`))} />
          <${D} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${e.name}?`}
            onYes=${()=>i(()=>l("DELETE",c(e)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function X(){let[s,n]=$(null);return[s,async o=>{n(null);try{return await o(),!0}catch(r){return n(r),!1}}]}function le({m:s,act:n}){let l=E(se),[o,r]=X(),[u,p]=$(""),h=(l?.items||[]).filter(i=>i.status==="ready");return t`<${M} id="media-part" title="ISO and rescue">
    <${C} error=${o||l?.error} />
    <p>In the CD-ROM drive: <strong data-media>${s.media?s.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${u} onChange=${i=>p(i.target.value)} aria-describedby=${o?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${l?h.length?"choose an image":"no image is ready":"loading…"}</option>
          ${h.map(i=>t`<option value=${i.id}>${i.name}</option>`)}
        </select>
        ${o?.fields?.iso_id&&t`<span class="field-error" id="iso_id-error">${o.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!u||s.rescue} onClick=${()=>r(()=>n("POST","/media",{iso_id:u}))}>Mount</button>
      <button type="button" disabled=${!s.media||s.rescue} onClick=${()=>r(()=>n("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${s.rescue?"on":"off"}</strong>.</p>
    ${s.rescue?t`<${D} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>r(()=>n("POST","/rescue",{enabled:!1}))} />`:t`<${D} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>r(()=>n("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ce({m:s,act:n}){let l=E(j),[o,r]=X(),[u,p]=$(null),h=a=>{a.preventDefault(),p(a.target)},i=async()=>{let a=new FormData(u),c={template_id:a.get("template_id")};a.get("password")&&(c.password=a.get("password"));let e=String(a.get("ssh_keys")||"").split(`
`).map(m=>m.trim()).filter(Boolean);e.length&&(c.ssh_keys=e),await r(()=>n("POST","/reinstall",c))&&u.reset(),p(null)};return t`<${M} id="reinstall-part" title="Reinstall">
    <${C} error=${o||l?.error} />
    <form onSubmit=${h} aria-label="Reinstall">
      <div class="grid">
        <${Z} templates=${l} error=${o} value=${s.template_id} />
        <${k} name="password" label="New root password (optional)" error=${o} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${u?t`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${a=>a?.focus()} onClick=${i}>Yes, reinstall</button>
            <button type="button" onClick=${()=>p(null)}>Cancel</button></p>`:t`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function Z({templates:s,error:n,value:l}){let o=n?.fields?.template_id;return t`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${o?"true":void 0} aria-describedby=${o?"template_id-error":void 0}>
      ${!s&&t`<option value="">loading…</option>`}
      ${(s?.items||[]).map(r=>t`<option value=${r.id} selected=${r.id===l}>${r.name}${r.disk_gb?` (at least ${r.disk_gb} GB)`:""}</option>`)}
    </select>
    ${o&&t`<span class="field-error" id="template_id-error">${o}</span>`}
  </label>`}var Q=s=>n=>{n&&!n.dataset.filled&&(n.value=s,n.dataset.filled="1")};function de({m:s,act:n}){let l=E(A),[o,r]=X(),[u,p]=$(""),h=async i=>{i.preventDefault();let a=new FormData(i.target),c={};for(let e of["cpu_cores","memory_mb","disk_gb"]){let m=Number(a.get(e));a.get(e)&&m!==s[e]&&(c[e]=m)}Object.keys(c).length&&await r(()=>n("PATCH","/resources",c))};return t`<${M} id="resize-part" title="Resize">
    <${C} error=${o||l?.error} />
    ${l?.items?.length>0&&t`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${u} onChange=${i=>p(i.target.value)}>
        <option value="">choose a plan</option>
        ${l.items.map(i=>t`<option value=${i.id}>${i.name}: ${i.cpu_cores} CPU, ${R(i.memory_mb)}, ${O(i.disk_gb)}${i.id===s.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!u} onClick=${()=>r(()=>n("POST","/plan",{plan_id:u}))}>Move to plan</button>
    </div>`}
    <form key=${`${s.cpu_cores}/${s.memory_mb}/${s.disk_gb}`} onSubmit=${h} aria-label="Resize">
      <div class="grid">
        <${k} name="cpu_cores" label="CPU cores" error=${o} type="number" min="1" inputRef=${Q(s.cpu_cores)} />
        <${k} name="memory_mb" label="Memory (MB)" error=${o} type="number" min="1" inputRef=${Q(s.memory_mb)} />
        <${k} name="disk_gb" label="Disk (GB, only grows)" error=${o} type="number" min=${s.disk_gb} inputRef=${Q(s.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var me=H(()=>import("./graphs-RZSIVX7B.js"),"Graphs"),$e=H(()=>import("./terminal-JIQ4ENQA.js"),"Console"),be=H(()=>import("./vnc-OOEFTFVU.js"),"VNC"),q="/api/client/machines";function W({task:s}){if(!s)return null;let n=V.value[s.id]||s;return t`<span class="task" aria-live="polite">${n.type}: <${B} value=${n.status} />${n.error?t` <span class="field-error">${n.error}</span>`:""}</span>`}var he=[["start","Start",oe],["stop","Stop",K],["shutdown","Shut down",K],["reboot","Reboot",ae]],fe=[["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],ge=(s,n)=>l=>{let o=`${s}${l}`;return n?`${o}${o.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(n)}`:o};function Xe({id:s,admin:n,tenant:l}){let[o,r]=$(null),[u,p]=$([]),[h,i]=$(null),[a,c]=$(null),[e,m]=$(0),[f,v]=$(!1),[F,G]=$(!1),N=`${q}/${encodeURIComponent(s)}`,P=`/api/virt/vms/${encodeURIComponent(s)}`,b=ge(N,n?l:""),T=()=>w("GET",b("")).then(d=>{r(d),d.last_task&&c(g=>g||d.last_task)},i);x(()=>{r(null),c(null),i(null),v(!1),G(!1),T(),w("GET",b("/tasks?limit=20")).then(d=>p(d.items),()=>{})},[s,l]),x(()=>L((d,g)=>{d==="machine.updated"&&g.id===s&&r(_=>_&&{..._,...g}),d==="task.updated"&&g.target_id===s&&(p(_=>_.some(S=>S.id===g.id)?_.map(S=>S.id===g.id?g:S):[g,..._]),(g.status==="succeeded"||g.status==="failed")&&(m(_=>_+1),T()))}),[s]);let I=async(d,g,_)=>{let S=await w(d,b(g),_);return c(S.task),p(J=>J.some(pe=>pe.id===S.task.id)?J:[S.task,...J]),S.task},z=async d=>{i(null);try{await I("POST",`/actions/${d}`)}catch(g){i(g)}},Y={m:o,at:b,act:I,ended:e};return t`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${C} error=${h} />
    ${o&&t`<h1>${o.name} <${B} value=${o.status} />${o.rescue?t` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${fe.filter(([d])=>d!=="vnc"||o.display).map(([d,g])=>t`<li><a href=${`#${d}`}>${g}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${he.map(([d,g,_])=>t`<button onClick=${()=>z(d)} data-action=${d}><${_} />${g}</button>`)}
      </div>
      ${a&&t`<p>Last action: <${W} task=${a} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${o.cpu_cores} CPU, ${R(o.memory_mb)} memory, ${O(o.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${o.template_id}</dd>
        <dt>Node</dt><dd>${o.node}</dd>
        <dt>Addresses</dt><dd>${(o.interfaces||[]).flatMap(d=>d.ip_addresses||[]).join(", ")||(o.addresses||[]).map(d=>d.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${o.media?o.media.name:"none"}</dd>
        <dt>Created</dt><dd>${U(o.created_at)}</dd>
      </dl>
      <div id="graphs"><${M} id="graphs-part" title="Graphs"><${me} url=${`${n?P:N}/usage-graphs`} /><//></div>
      <div id="console"><${M} id="console-part" title="Serial console">
        ${f?t`<${$e} url=${`${n?P:N}/console`} /><button type="button" onClick=${()=>v(!1)}>Close console</button>`:t`<button type="button" onClick=${()=>v(!0)}>Open console</button>`}
      <//></div>
      ${o.display&&t`<div id="vnc"><${M} id="vnc-part" title="Graphical console (VNC)">
        ${F?t`<${be} url=${`${n?P:N}/console`} /><button type="button" onClick=${()=>G(!1)}>Close the graphical console</button>`:t`<button type="button" onClick=${()=>G(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${re} ...${Y} /></div>
      <div id="snapshots"><${ie} ...${Y} /></div>
      <div id="media"><${le} ...${Y} /></div>
      <div id="reinstall"><${ce} ...${Y} /></div>
      <div id="resize"><${de} ...${Y} /></div>
      <div id="tasks"><${M} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${u.map(d=>V.value[d.id]||d).map(d=>t`<tr key=${d.id}><td>${d.type}</td><td><${B} value=${d.status} /></td><td>${U(d.created_at)}</td><td>${d.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function lt(){let[s,n]=$(null),[l,o]=$(null),[r,u]=$([""]),p=r[r.length-1];x(()=>{let a=!0;return w("GET",`${q}?limit=50${p?`&cursor=${encodeURIComponent(p)}`:""}`).then(c=>a&&n(c),c=>a&&o(c)),()=>{a=!1}},[p]),x(()=>L((a,c)=>{a!=="machine.updated"&&a!=="machine.deleted"||n(e=>{if(!e)return e;let m=e.items.findIndex(f=>f.id===c.id);return a==="machine.deleted"?m<0?e:{...e,items:e.items.filter(f=>f.id!==c.id)}:m>=0?{...e,items:e.items.map(f=>f.id===c.id?{...f,...c}:f)}:r.length===1?{...e,items:[c,...e.items]}:e})}),[r.length]);let h=a=>n(c=>c&&!c.items.some(e=>e.id===a.machine.id)?{...c,items:[{...a.machine,task_id:a.task.id},...c.items]}:c),i={};for(let a of Object.values(V.value)){let c=i[a.target_id];(!c||c.created_at<a.created_at)&&(i[a.target_id]=a)}return t`<main id="main">
    <h1>Machines</h1>
    <${C} error=${l} />
    <${ke} onCreated=${h} />
    ${s&&t`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${s.items.map(a=>t`<tr key=${a.id} data-machine=${a.id}>
        <td><a href=${`/machines/${encodeURIComponent(a.id)}`}>${a.name}</a></td>
        <td><${B} value=${a.status} /></td>
        <td>${a.cpu_cores} CPU, ${R(a.memory_mb)}, ${O(a.disk_gb)}</td>
        <td>${i[a.id]?t`<${W} task=${i[a.id]} />`:a.task_id?t`<${W} task=${{id:a.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${s.items.length===0&&t`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>u(r.slice(0,-1))}>Previous</button>
      <button disabled=${!s.next_cursor} onClick=${()=>u([...r,s.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function ke({onCreated:s,admin:n}){let[l,o]=$(null),r=E(j),u=E(A),p=E(n?te:null),[h,i]=$(!1),[a,c]=$(null),e=u?.items||[],m=n||u&&e.length===0,f=a??(m?"":e[0]?.id||""),v=e.find(b=>b.id===f),F=v?.allowed_templates?.length?new Set(v.allowed_templates):null,G=r&&(F?{...r,items:r.items.filter(b=>F.has(b.id))}:r),N=async b=>{b.preventDefault();let T=new FormData(b.target),I={name:T.get("name"),template_id:T.get("template_id")};if(v)I.plan_id=v.id;else for(let z of["cpu_cores","memory_mb","disk_gb"])T.get(z)&&(I[z]=Number(T.get(z)));o(null);try{s(await w("POST",n?`${q}?tenant_id=${encodeURIComponent(T.get("tenant_id"))}`:q,I)),b.target.reset(),i(!1)}catch(z){o(z)}};if(!h)return t`<button class="primary" onClick=${()=>i(!0)}>New machine</button>`;let P=l?.fields?.plan_id;return t`<form class="card" onSubmit=${N} aria-label="New machine">
    <${C} error=${l||u?.error||p?.error} />
    <div class="grid">
      <${k} name="name" label="Name" error=${l} required />
      ${n&&t`<label class="field"><span>Tenant</span><select name="tenant_id" required>
        ${(p?.items||[]).map(b=>t`<option value=${b.id}>${b.name}</option>`)}</select></label>`}
      ${e.length>0&&t`<label class="field"><span>Plan</span>
        <select name="plan_id" value=${f} onChange=${b=>c(b.target.value)} aria-invalid=${P?"true":void 0} aria-describedby=${P?"plan_id-error":void 0}>
          ${m&&t`<option value="">custom sizes</option>`}
          ${e.map(b=>t`<option value=${b.id}>${b.name}: ${b.cpu_cores} CPU, ${R(b.memory_mb)}, ${O(b.disk_gb)}</option>`)}
        </select>${P&&t`<span class="field-error" id="plan_id-error">${P}</span>`}</label>`}
      <${Z} key=${f} templates=${G} error=${l} />
      ${v?t`<p class="muted" data-plan-sizes>${v.cpu_cores} CPU, ${R(v.memory_mb)}, ${O(v.disk_gb)} from the plan</p>`:m&&t`
          <${k} name="cpu_cores" label="CPU cores" error=${l} type="number" min="1" />
          <${k} name="memory_mb" label="Memory (MB)" error=${l} type="number" min="1" />
          <${k} name="disk_gb" label="Disk (GB)" error=${l} type="number" min="1" />`}
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>i(!1)}>Cancel</button>
  </form>`}export{ve as a,_e as b,Ce as c,Me as d,Se as e,we as f,Pe as g,Te as h,xe as i,Re as j,Oe as k,Xe as l,lt as m,ke as n};
