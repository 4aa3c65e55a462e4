import{a as N,b as G,c as ce,d as de}from"./chunk-MV7NMHT5.js";import{a as D,b as B}from"./chunk-J6DCW2GQ.js";import{a as J,b as K,c as M}from"./chunk-WPC7LHF6.js";import{a as P}from"./chunk-3UYUDP3L.js";import{a as T}from"./chunk-GA4CKMMI.js";import{a as p,b as S,d as j,f as H,g as W,h as re,i as ie,j as _,l as R,m as E,n as x,o as O,p as y,q as b,r as le,s as k}from"./chunk-VVJEA7B6.js";import{f as se,g as e}from"./chunk-XGWGEZEQ.js";function me(){let[t,o]=p(null),[i,a]=p(null),[c,d]=p(!1),[m,$]=p([]);S(()=>{_("GET","/api/auth/oidc/providers").then(r=>$(r.providers||[]),()=>{})},[]);let l=encodeURIComponent(location.pathname==="/login"?"/":location.pathname+location.search);return e`<main id="main" class="login">
    <form onSubmit=${async r=>{r.preventDefault();let n=new FormData(r.target);d(!0),o(null);try{i?await W("login/totp",{challenge:i,code:n.get("code")}):await W("login",{email:n.get("email"),password:n.get("password")})}catch(h){h.code==="totp_required"&&h.challenge?a(h.challenge):o(h)}finally{d(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${y} error=${t} />
      ${i?e`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${b} key="code" name="code" label="Code" error=${t} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:e`<${b} key="email" name="email" label="E-mail" error=${t} type="email" autocomplete="username" required autofocus />
          <${b} name="password" label="Password" error=${t} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${c}>${i?"Verify":"Sign in"}</button>
      ${!i&&m.length>0&&e`<div class="sso" role="group" aria-label="Single sign-on">
        <p class="muted">Or sign in with</p>
        ${m.map(r=>e`<a class="button" data-provider=${r.id} href=${`/api/auth/oidc/${encodeURIComponent(r.id)}/start?redirect_to=${l}`}>${r.name||r.id}</a>`)}
      </div>`}
    </form>
  </main>`}function X(){let[t,o]=p(null);return[t,async a=>{o(null);try{return await a(),!0}catch(c){return o(c),!1}}]}function ue({m:t,act:o}){let i=N(de),[a,c]=X(),[d,m]=p(""),$=(i?.items||[]).filter(l=>l.status==="ready");return e`<${k} id="media-part" title="ISO and rescue">
    <${y} error=${a||i?.error} />
    <p>In the CD-ROM drive: <strong data-media>${t.media?t.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${d} onChange=${l=>m(l.target.value)} aria-describedby=${a?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${i?$.length?"choose an image":"no image is ready":"loading…"}</option>
          ${$.map(l=>e`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${a?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${a.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!d||t.rescue} onClick=${()=>c(()=>o("POST","/media",{iso_id:d}))}>Mount</button>
      <button type="button" disabled=${!t.media||t.rescue} onClick=${()=>c(()=>o("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${t.rescue?"on":"off"}</strong>.</p>
    ${t.rescue?e`<${T} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>c(()=>o("POST","/rescue",{enabled:!1}))} />`:e`<${T} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>c(()=>o("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function pe({m:t,act:o}){let i=N(G),[a,c]=X(),[d,m]=p(null),$=s=>{s.preventDefault(),m(s.target)},l=async()=>{let s=new FormData(d),r={template_id:s.get("template_id")};s.get("password")&&(r.password=s.get("password"));let n=String(s.get("ssh_keys")||"").split(`
`).map(h=>h.trim()).filter(Boolean);n.length&&(r.ssh_keys=n),await c(()=>o("POST","/reinstall",r))&&d.reset(),m(null)};return e`<${k} id="reinstall-part" title="Reinstall">
    <${y} error=${a||i?.error} />
    <form onSubmit=${$} aria-label="Reinstall">
      <div class="grid">
        <${Z} templates=${i} error=${a} value=${t.template_id} />
        <${b} name="password" label="New root password (optional)" error=${a} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${d?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${s=>s?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>m(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function Z({templates:t,error:o,value:i}){let a=o?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${a?"true":void 0} aria-describedby=${a?"template_id-error":void 0}>
      ${!t&&e`<option value="">loading…</option>`}
      ${(t?.items||[]).map(c=>e`<option value=${c.id} selected=${c.id===i}>${c.name}${c.disk_gb?` (at least ${c.disk_gb} GB)`:""}</option>`)}
    </select>
    ${a&&e`<span class="field-error" id="template_id-error">${a}</span>`}
  </label>`}var Q=t=>o=>{o&&!o.dataset.filled&&(o.value=t,o.dataset.filled="1")};function $e({m:t,act:o}){let i=N(ce),[a,c]=X(),[d,m]=p(""),$=async l=>{l.preventDefault();let s=new FormData(l.target),r={};for(let n of["cpu_cores","memory_mb","disk_gb"]){let h=Number(s.get(n));s.get(n)&&h!==t[n]&&(r[n]=h)}Object.keys(r).length&&await c(()=>o("PATCH","/resources",r))};return e`<${k} id="resize-part" title="Resize">
    <${y} error=${a||i?.error} />
    ${i?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${d} onChange=${l=>m(l.target.value)}>
        <option value="">choose a plan</option>
        ${i.items.map(l=>e`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${R(l.memory_mb)}, ${E(l.disk_gb)}${l.id===t.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!d} onClick=${()=>c(()=>o("POST","/plan",{plan_id:d}))}>Move to plan</button>
    </div>`}
    <form key=${`${t.cpu_cores}/${t.memory_mb}/${t.disk_gb}`} onSubmit=${$} aria-label="Resize">
      <div class="grid">
        <${b} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" inputRef=${Q(t.cpu_cores)} />
        <${b} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" inputRef=${Q(t.memory_mb)} />
        <${b} name="disk_gb" label="Disk (GB, only grows)" error=${a} type="number" min=${t.disk_gb} inputRef=${Q(t.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var w=t=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${t} /></svg>`,ee=w("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),he=w("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),fe=w("M7 4l13 8-13 8z"),te=w("M6 6h12v12H6z"),be=w("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),ge=w("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),ye=w("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),ve=w("M4 18a8 8 0 1 1 16 0M12 18l4-6"),ke=w("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),_e=w("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2");function we(t,o){let[i,a]=p(null),[c,d]=p(null);return S(()=>{let m=!0;return _("GET",t).then($=>{m&&(a($),d(null))},$=>m&&d($)),()=>{m=!1}},[t,o]),[i,c]}function Ce({at:t,act:o,ended:i}){let[a,c]=we(t("/backups?limit=100"),i),[d,m]=p(null),[$,l]=p(!0),s=async n=>{m(null);try{return await n(),!0}catch(h){return m(h),!1}};return e`<${k} id="backups-part" title="Backups">
    <${y} error=${d||c} />
    <form class="inline-form" onSubmit=${async n=>{n.preventDefault();let h=new FormData(n.target),g={mode:h.get("mode")};h.get("note")&&(g.note=h.get("note")),await s(()=>o("POST","/backups",g))&&n.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${b} name="note" label="Note (optional)" error=${d} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${$} onChange=${n=>l(n.target.checked)} /> Start the machine after a restore</label>
    ${a&&(a.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${a.items.map(n=>e`<tr key=${n.id} data-backup=${n.id}>
        <td>${x(n.created_at)}</td><td>${le(n.size_bytes)}</td><td>${n.mode}</td><td>${n.origin}</td><td>${n.note||""}</td>
        <td><${T} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>s(()=>o("POST",`/backups/${encodeURIComponent(n.id)}/restore`,{start_after:$}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function Me({m:t,at:o,act:i,ended:a}){let[c,d]=we(o("/snapshots?limit=200"),a),[m,$]=p(null),l=async n=>{$(null);try{return await n(),!0}catch(h){return $(h),!1}},s=async n=>{n.preventDefault();let h=new FormData(n.target),g={name:h.get("name")};h.get("description")&&(g.description=h.get("description")),h.get("include_memory")&&(g.include_memory=!0),await l(()=>i("POST","/snapshots",g))&&n.target.reset()},r=n=>`/snapshots/${encodeURIComponent(n.name)}`;return e`<${k} id="snapshots-part" title="Snapshots">
    <${y} error=${m||d} />
    <form class="inline-form" onSubmit=${s} aria-label="Take a snapshot">
      <${b} name="name" label="Name" error=${m} required />
      <${b} name="description" label="Description (optional)" error=${m} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${t.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${c&&(c.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${c.items.map(n=>e`<tr key=${n.name} data-snapshot=${n.name}>
        <td>${n.name}</td><td>${x(n.created_at)}</td><td>${n.includes_memory?"yes":"no"}</td><td>${n.description||""}</td>
        <td class="row-actions">
          <${T} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${n.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>i("POST",`${r(n)}/rollback`))} />
          <${T} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${n.name}?`}
            onYes=${()=>l(()=>i("DELETE",r(n)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}var ze=P(()=>import("./graphs-VNOUYULS.js"),"Graphs"),De=P(()=>import("./terminal-5LW4COWZ.js"),"Console"),Ie=P(()=>import("./vnc-ETUE5ZZV.js"),"VNC"),q="/api/client/machines";function F({task:t}){if(!t)return null;let o=D.value[t.id]||t;return e`<span class="task" aria-live="polite">${o.type}: <${O} value=${o.status} />${o.error?e` <span class="field-error">${o.error}</span>`:""}</span>`}var Ue=[["start","Start",fe],["stop","Stop",te],["shutdown","Shut down",te],["reboot","Reboot",be]],Be=[["graphs","Graphs"],["console","Console"],["vnc","VNC"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],Ge=(t,o)=>i=>{let a=`${t}${i}`;return o?`${a}${a.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(o)}`:a};function oe({id:t,admin:o,tenant:i}){let[a,c]=p(null),[d,m]=p([]),[$,l]=p(null),[s,r]=p(null),[n,h]=p(0),[g,L]=p(!1),[xe,V]=p(!1),I=`${q}/${encodeURIComponent(t)}`,Y=`/api/virt/vms/${encodeURIComponent(t)}`,U=Ge(I,o?i:""),ae=()=>_("GET",U("")).then(u=>{c(u),u.last_task&&r(f=>f||u.last_task)},l);S(()=>{c(null),r(null),l(null),L(!1),V(!1),ae(),_("GET",U("/tasks?limit=20")).then(u=>m(u.items),()=>{})},[t,i]),S(()=>B((u,f)=>{u==="machine.updated"&&f.id===t&&c(v=>v&&{...v,...f}),u==="task.updated"&&f.target_id===t&&(m(v=>v.some(C=>C.id===f.id)?v.map(C=>C.id===f.id?f:C):[f,...v]),(f.status==="succeeded"||f.status==="failed")&&(h(v=>v+1),ae()))}),[t]);let ne=async(u,f,v)=>{let C=await _(u,U(f),v);return r(C.task),m(A=>A.some(Ne=>Ne.id===C.task.id)?A:[C.task,...A]),C.task},Oe=async u=>{l(null);try{await ne("POST",`/actions/${u}`)}catch(f){l(f)}},z={m:a,at:U,act:ne,ended:n};return e`<main id="main">
    <p><a href=${o?"/admin/machines":"/machines"}>← Machines</a></p>
    <${y} error=${$} />
    ${a&&e`<h1>${a.name} <${O} value=${a.status} />${a.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Be.filter(([u])=>u!=="vnc"||a.display).map(([u,f])=>e`<li><a href=${`#${u}`}>${f}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${Ue.map(([u,f,v])=>e`<button onClick=${()=>Oe(u)} data-action=${u}><${v} />${f}</button>`)}
      </div>
      ${s&&e`<p>Last action: <${F} task=${s} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${a.cpu_cores} CPU, ${R(a.memory_mb)} memory, ${E(a.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${a.template_id}</dd>
        <dt>Node</dt><dd>${a.node}</dd>
        <dt>Addresses</dt><dd>${(a.interfaces||[]).flatMap(u=>u.ip_addresses||[]).join(", ")||(a.addresses||[]).map(u=>u.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${a.media?a.media.name:"none"}</dd>
        <dt>Created</dt><dd>${x(a.created_at)}</dd>
      </dl>
      <div id="graphs"><${k} id="graphs-part" title="Graphs"><${ze} url=${`${o?Y:I}/usage-graphs`} /><//></div>
      <div id="console"><${k} id="console-part" title="Serial console">
        ${g?e`<${De} url=${`${o?Y:I}/console`} /><button type="button" onClick=${()=>L(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>L(!0)}>Open console</button>`}
      <//></div>
      ${a.display&&e`<div id="vnc"><${k} id="vnc-part" title="Graphical console (VNC)">
        ${xe?e`<${Ie} url=${`${o?Y:I}/console`} /><button type="button" onClick=${()=>V(!1)}>Close the graphical console</button>`:e`<button type="button" onClick=${()=>V(!0)}>Open the graphical console</button>`}
      <//></div>`}
      <div id="backups"><${Ce} ...${z} /></div>
      <div id="snapshots"><${Me} ...${z} /></div>
      <div id="media"><${ue} ...${z} /></div>
      <div id="reinstall"><${pe} ...${z} /></div>
      <div id="resize"><${$e} ...${z} /></div>
      <div id="tasks"><${k} id="tasks-part" title="Tasks">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${d.map(u=>D.value[u.id]||u).map(u=>e`<tr key=${u.id}><td>${u.type}</td><td><${O} value=${u.status} /></td><td>${x(u.created_at)}</td><td>${u.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function Pe(){let[t,o]=p(null),[i,a]=p(null),[c,d]=p([""]),m=c[c.length-1];S(()=>{let s=!0;return _("GET",`${q}?limit=50${m?`&cursor=${encodeURIComponent(m)}`:""}`).then(r=>s&&o(r),r=>s&&a(r)),()=>{s=!1}},[m]),S(()=>B((s,r)=>{s!=="machine.updated"&&s!=="machine.deleted"||o(n=>{if(!n)return n;let h=n.items.findIndex(g=>g.id===r.id);return s==="machine.deleted"?h<0?n:{...n,items:n.items.filter(g=>g.id!==r.id)}:h>=0?{...n,items:n.items.map(g=>g.id===r.id?{...g,...r}:g)}:c.length===1?{...n,items:[r,...n.items]}:n})}),[c.length]);let $=s=>o(r=>r&&!r.items.some(n=>n.id===s.machine.id)?{...r,items:[{...s.machine,task_id:s.task.id},...r.items]}:r),l={};for(let s of Object.values(D.value)){let r=l[s.target_id];(!r||r.created_at<s.created_at)&&(l[s.target_id]=s)}return e`<main id="main">
    <h1>Machines</h1>
    <${y} error=${i} />
    <${qe} onCreated=${$} />
    ${t&&e`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${t.items.map(s=>e`<tr key=${s.id} data-machine=${s.id}>
        <td><a href=${`/machines/${encodeURIComponent(s.id)}`}>${s.name}</a></td>
        <td><${O} value=${s.status} /></td>
        <td>${s.cpu_cores} CPU, ${R(s.memory_mb)}, ${E(s.disk_gb)}</td>
        <td>${l[s.id]?e`<${F} task=${l[s.id]} />`:s.task_id?e`<${F} task=${{id:s.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${t.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${c.length===1} onClick=${()=>d(c.slice(0,-1))}>Previous</button>
      <button disabled=${!t.next_cursor} onClick=${()=>d([...c,t.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function qe({onCreated:t}){let[o,i]=p(null),a=N(G),[c,d]=p(!1),m=async $=>{$.preventDefault();let l=new FormData($.target),s={name:l.get("name"),template_id:l.get("template_id")};l.get("plan_id")&&(s.plan_id=l.get("plan_id"));for(let r of["cpu_cores","memory_mb","disk_gb"])l.get(r)&&(s[r]=Number(l.get(r)));i(null);try{t(await _("POST",q,s)),$.target.reset(),d(!1)}catch(r){i(r)}};return c?e`<form class="card" onSubmit=${m} aria-label="New machine">
    <${y} error=${o} />
    <div class="grid">
      <${b} name="name" label="Name" error=${o} required />
      <${Z} templates=${a} error=${o} />
      <${b} name="plan_id" label="Plan (optional)" error=${o} />
      <${b} name="cpu_cores" label="CPU cores" error=${o} type="number" min="1" />
      <${b} name="memory_mb" label="Memory (MB)" error=${o} type="number" min="1" />
      <${b} name="disk_gb" label="Disk (GB)" error=${o} type="number" min="1" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`:e`<button class="primary" onClick=${()=>d(!0)}>New machine</button>`}var Fe=P(()=>import("./account-4OYXNCKT.js"),"Account"),Le=P(()=>import("./firewall-DMKRZUHG.js"),"Firewall"),Ve=P(()=>import("./schedules-TL3ENAQW.js"),"Schedules"),Te=j(null),Ye=null;function Ae(){return Ye||=import("./admin-ZNHCJ2MA.js").then(t=>{Te.value=t}),Te.value}var Re=j(!1);re().catch(()=>{}).finally(()=>{Re.value=!0});var Ee=["/account","Account",ye],je=[["/machines","Machines",ee],["/firewall","Firewall",ke],["/schedules","Schedules",_e],Ee],He=[["/admin/dashboard","Dashboard",ve],["/admin/machines","Machines",ee],["/admin/nodes","Nodes",he],Ee];function We({admin:t}){let o=J.value,i;if(M("/account",o))return e`<${Fe} />`;if(t){let a=Ae();return a?(i=M("/admin/machines/:id",o))?e`<${oe} id=${i.id} admin tenant=${new URLSearchParams(o.split("?")[1]||"").get("tenant")||""} />`:M("/admin/nodes",o)?e`<${a.Nodes} />`:M("/admin/machines",o)?e`<${a.AdminMachines} />`:e`<${a.Dashboard} />`:e`<main id="main"><p>Loading…</p></main>`}return(i=M("/machines/:id",o))?e`<${oe} id=${i.id} />`:M("/firewall",o)?e`<${Le} />`:M("/schedules",o)?e`<${Ve} />`:e`<${Pe} />`}function Je(){let t=H.value,o=t.user?.role==="admin",i=o?He:je,a=J.value.split("?")[0],c=i[0][0];return(a==="/"||a==="/login"||a!=="/account"&&o!==a.startsWith("/admin"))&&queueMicrotask(()=>K(c,!0)),e`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${c}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${i.map(([d,m,$])=>e`<li><a href=${d} aria-current=${a.startsWith(d)?"page":void 0}><${$} />${m}</a></li>`)}
      </ul></nav>
      <span class="who">${t.user?.email}</span>
      <button class="quiet" onClick=${()=>ie().then(()=>K("/login",!0))}><${ge} />Sign out</button>
    </header>
    <${We} admin=${o} />`}function Ke(){return Re.value?H.value?e`<${Je} />`:e`<${me} />`:e`<main id="main"><p>Loading…</p></main>`}se(e`<${Ke} />`,document.getElementById("app"));
