import{a as H,b as W,c as P}from"./chunk-X6HVTMWJ.js";import{a as B,b as G}from"./chunk-7L5G2KIG.js";import{a as M,b as N}from"./chunk-4V2D6SGB.js";import{a as u,b as S,d as F,f as j,g as V,h as se,i as ne,j as v,l as T,m as E,n as x,o as R,p as y,q as b,r as re,s as _}from"./chunk-YGI5HK3D.js";import{f as ae,g as o}from"./chunk-XGWGEZEQ.js";function ie(){let[e,a]=u(null),[i,t]=u(null),[r,d]=u(!1);return o`<main id="main" class="login">
    <form onSubmit=${async p=>{p.preventDefault();let l=new FormData(p.target);d(!0),a(null);try{i?await V("login/totp",{challenge:i,code:l.get("code")}):await V("login",{email:l.get("email"),password:l.get("password")})}catch(s){s.code==="totp_required"&&s.challenge?t(s.challenge):a(s)}finally{d(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${y} error=${e} />
      ${i?o`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${b} key="code" name="code" label="Code" error=${e} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:o`<${b} key="email" name="email" label="E-mail" error=${e} type="email" autocomplete="username" required autofocus />
          <${b} name="password" label="Password" error=${e} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${r}>${i?"Verify":"Sign in"}</button>
    </form>
  </main>`}var z={};function O(e){let[a,i]=u(z[e]?{items:z[e]}:null);return S(()=>{if(z[e])return;let t=!0;return v("GET",e).then(r=>{z[e]=r.items||[],t&&i({items:z[e]})},r=>t&&i({items:[],error:r})),()=>{t=!1}},[e]),a}var U="/api/resources/templates?limit=500",le="/api/resources/plans?limit=200",ce="/api/resources/isos?limit=200";function J(){let[e,a]=u(null);return[e,async t=>{a(null);try{return await t(),!0}catch(r){return a(r),!1}}]}function de({m:e,act:a}){let i=O(ce),[t,r]=J(),[d,m]=u(""),p=(i?.items||[]).filter(l=>l.status==="ready");return o`<${_} id="media-part" title="ISO and rescue">
    <${y} error=${t||i?.error} />
    <p>In the CD-ROM drive: <strong data-media>${e.media?e.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${d} onChange=${l=>m(l.target.value)} aria-describedby=${t?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${i?p.length?"choose an image":"no image is ready":"loading…"}</option>
          ${p.map(l=>o`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${t?.fields?.iso_id&&o`<span class="field-error" id="iso_id-error">${t.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!d||e.rescue} onClick=${()=>r(()=>a("POST","/media",{iso_id:d}))}>Mount</button>
      <button type="button" disabled=${!e.media||e.rescue} onClick=${()=>r(()=>a("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${e.rescue?"on":"off"}</strong>.</p>
    ${e.rescue?o`<${M} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>r(()=>a("POST","/rescue",{enabled:!1}))} />`:o`<${M} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>r(()=>a("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function me({m:e,act:a}){let i=O(U),[t,r]=J(),[d,m]=u(null),p=s=>{s.preventDefault(),m(s.target)},l=async()=>{let s=new FormData(d),c={template_id:s.get("template_id")};s.get("password")&&(c.password=s.get("password"));let n=String(s.get("ssh_keys")||"").split(`
`).map(h=>h.trim()).filter(Boolean);n.length&&(c.ssh_keys=n),await r(()=>a("POST","/reinstall",c))&&d.reset(),m(null)};return o`<${_} id="reinstall-part" title="Reinstall">
    <${y} error=${t||i?.error} />
    <form onSubmit=${p} aria-label="Reinstall">
      <div class="grid">
        <${K} templates=${i} error=${t} value=${e.template_id} />
        <${b} name="password" label="New root password (optional)" error=${t} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${d?o`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${s=>s?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>m(null)}>Cancel</button></p>`:o`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function K({templates:e,error:a,value:i}){let t=a?.fields?.template_id;return o`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${t?"true":void 0} aria-describedby=${t?"template_id-error":void 0}>
      ${!e&&o`<option value="">loading…</option>`}
      ${(e?.items||[]).map(r=>o`<option value=${r.id} selected=${r.id===i}>${r.name}${r.disk_gb?` (at least ${r.disk_gb} GB)`:""}</option>`)}
    </select>
    ${t&&o`<span class="field-error" id="template_id-error">${t}</span>`}
  </label>`}function ue({m:e,act:a}){let i=O(le),[t,r]=J(),[d,m]=u(""),p=async l=>{l.preventDefault();let s=new FormData(l.target),c={};for(let n of["cpu_cores","memory_mb","disk_gb"]){let h=Number(s.get(n));s.get(n)&&h!==e[n]&&(c[n]=h)}Object.keys(c).length&&await r(()=>a("PATCH","/resources",c))};return o`<${_} id="resize-part" title="Resize">
    <${y} error=${t||i?.error} />
    ${i?.items?.length>0&&o`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${d} onChange=${l=>m(l.target.value)}>
        <option value="">choose a plan</option>
        ${i.items.map(l=>o`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${T(l.memory_mb)}, ${E(l.disk_gb)}${l.id===e.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!d} onClick=${()=>r(()=>a("POST","/plan",{plan_id:d}))}>Move to plan</button>
    </div>`}
    <form onSubmit=${p} aria-label="Resize">
      <div class="grid">
        <${b} name="cpu_cores" label="CPU cores" error=${t} type="number" min="1" value=${e.cpu_cores} />
        <${b} name="memory_mb" label="Memory (MB)" error=${t} type="number" min="1" value=${e.memory_mb} />
        <${b} name="disk_gb" label="Disk (GB, only grows)" error=${t} type="number" min=${e.disk_gb} value=${e.disk_gb} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var C=e=>()=>o`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${e} /></svg>`,Q=C("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),pe=C("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),$e=C("M7 4l13 8-13 8z"),X=C("M6 6h12v12H6z"),he=C("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),fe=C("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),be=C("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),ge=C("M4 18a8 8 0 1 1 16 0M12 18l4-6");function ke(e,a){let[i,t]=u(null),[r,d]=u(null);return S(()=>{let m=!0;return v("GET",e).then(p=>{m&&(t(p),d(null))},p=>m&&d(p)),()=>{m=!1}},[e,a]),[i,r]}function ve({at:e,act:a,ended:i}){let[t,r]=ke(e("/backups?limit=100"),i),[d,m]=u(null),[p,l]=u(!0),s=async n=>{m(null);try{return await n(),!0}catch(h){return m(h),!1}};return o`<${_} id="backups-part" title="Backups">
    <${y} error=${d||r} />
    <form class="inline-form" onSubmit=${async n=>{n.preventDefault();let h=new FormData(n.target),g={mode:h.get("mode")};h.get("note")&&(g.note=h.get("note")),await s(()=>a("POST","/backups",g))&&n.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${b} name="note" label="Note (optional)" error=${d} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${p} onChange=${n=>l(n.target.checked)} /> Start the machine after a restore</label>
    ${t&&(t.items.length===0?o`<p>No backups yet.</p>`:o`<div class="table-wrap"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(n=>o`<tr key=${n.id} data-backup=${n.id}>
        <td>${x(n.created_at)}</td><td>${re(n.size_bytes)}</td><td>${n.mode}</td><td>${n.origin}</td><td>${n.note||""}</td>
        <td><${M} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>s(()=>a("POST",`/backups/${encodeURIComponent(n.id)}/restore`,{start_after:p}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function _e({m:e,at:a,act:i,ended:t}){let[r,d]=ke(a("/snapshots?limit=200"),t),[m,p]=u(null),l=async n=>{p(null);try{return await n(),!0}catch(h){return p(h),!1}},s=async n=>{n.preventDefault();let h=new FormData(n.target),g={name:h.get("name")};h.get("description")&&(g.description=h.get("description")),h.get("include_memory")&&(g.include_memory=!0),await l(()=>i("POST","/snapshots",g))&&n.target.reset()},c=n=>`/snapshots/${encodeURIComponent(n.name)}`;return o`<${_} id="snapshots-part" title="Snapshots">
    <${y} error=${m||d} />
    <form class="inline-form" onSubmit=${s} aria-label="Take a snapshot">
      <${b} name="name" label="Name" error=${m} required />
      <${b} name="description" label="Description (optional)" error=${m} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${e.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${r&&(r.items.length===0?o`<p>No snapshots.</p>`:o`<div class="table-wrap"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${r.items.map(n=>o`<tr key=${n.name} data-snapshot=${n.name}>
        <td>${n.name}</td><td>${x(n.created_at)}</td><td>${n.includes_memory?"yes":"no"}</td><td>${n.description||""}</td>
        <td class="row-actions">
          <${M} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${n.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>i("POST",`${c(n)}/rollback`))} />
          <${M} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${n.name}?`}
            onYes=${()=>l(()=>i("DELETE",c(n)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}var xe=N(()=>import("./graphs-ECB5J53H.js"),"Graphs"),Re=N(()=>import("./terminal-M35H5JLS.js"),"Console"),q="/api/client/machines";function L({task:e}){if(!e)return null;let a=B.value[e.id]||e;return o`<span class="task" aria-live="polite">${a.type}: <${R} value=${a.status} />${a.error?o` <span class="field-error">${a.error}</span>`:""}</span>`}var Oe=[["start","Start",$e],["stop","Stop",X],["shutdown","Shut down",X],["reboot","Reboot",he]],De=[["graphs","Graphs"],["console","Console"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],Ne=(e,a)=>i=>{let t=`${e}${i}`;return a?`${t}${t.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(a)}`:t};function Z({id:e,admin:a,tenant:i}){let[t,r]=u(null),[d,m]=u([]),[p,l]=u(null),[s,c]=u(null),[n,h]=u(0),[g,Y]=u(!1),A=`${q}/${encodeURIComponent(e)}`,ee=`/api/virt/vms/${encodeURIComponent(e)}`,I=Ne(A,a?i:""),te=()=>v("GET",I("")).then($=>{r($),$.last_task&&c(f=>f||$.last_task)},l);S(()=>{r(null),c(null),l(null),Y(!1),te(),v("GET",I("/tasks?limit=20")).then($=>m($.items),()=>{})},[e,i]),S(()=>G(($,f)=>{$==="machine.updated"&&f.id===e&&r(k=>k&&{...k,...f}),$==="task.updated"&&f.target_id===e&&(m(k=>k.some(w=>w.id===f.id)?k.map(w=>w.id===f.id?f:w):[f,...k]),(f.status==="succeeded"||f.status==="failed")&&(h(k=>k+1),te()))}),[e]);let oe=async($,f,k)=>{let w=await v($,I(f),k);return c(w.task),m(Te=>[w.task,...Te.filter(Ee=>Ee.id!==w.task.id)]),w.task},Pe=async $=>{l(null);try{await oe("POST",`/actions/${$}`)}catch(f){l(f)}},D={m:t,at:I,act:oe,ended:n};return o`<main id="main">
    <p><a href=${a?"/admin/machines":"/machines"}>← Machines</a></p>
    <${y} error=${p} />
    ${t&&o`<h1>${t.name} <${R} value=${t.status} />${t.rescue?o` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${De.map(([$,f])=>o`<li><a href=${`#${$}`}>${f}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${Oe.map(([$,f,k])=>o`<button onClick=${()=>Pe($)} data-action=${$}><${k} />${f}</button>`)}
      </div>
      ${s&&o`<p>Last action: <${L} task=${s} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${t.cpu_cores} CPU, ${T(t.memory_mb)} memory, ${E(t.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${t.template_id}</dd>
        <dt>Node</dt><dd>${t.node}</dd>
        <dt>Addresses</dt><dd>${(t.interfaces||[]).flatMap($=>$.ip_addresses||[]).join(", ")||(t.addresses||[]).map($=>$.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${t.media?t.media.name:"none"}</dd>
        <dt>Created</dt><dd>${x(t.created_at)}</dd>
      </dl>
      <div id="graphs"><${_} id="graphs-part" title="Graphs"><${xe} url=${`${a?ee:A}/usage-graphs`} /><//></div>
      <div id="console"><${_} id="console-part" title="Serial console">
        ${g?o`<${Re} url=${`${a?ee:A}/console`} /><button type="button" onClick=${()=>Y(!1)}>Close console</button>`:o`<button type="button" onClick=${()=>Y(!0)}>Open console</button>`}
      <//></div>
      <div id="backups"><${ve} ...${D} /></div>
      <div id="snapshots"><${_e} ...${D} /></div>
      <div id="media"><${de} ...${D} /></div>
      <div id="reinstall"><${me} ...${D} /></div>
      <div id="resize"><${ue} ...${D} /></div>
      <div id="tasks"><${_} id="tasks-part" title="Tasks">
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${d.map($=>o`<tr key=${$.id}><td>${$.type}</td><td><${R} value=${$.status} /></td><td>${x($.created_at)}</td><td>${$.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function Se(){let[e,a]=u(null),[i,t]=u(null),[r,d]=u([""]),m=r[r.length-1];S(()=>{let s=!0;return v("GET",`${q}?limit=50${m?`&cursor=${encodeURIComponent(m)}`:""}`).then(c=>s&&a(c),c=>s&&t(c)),()=>{s=!1}},[m]),S(()=>G((s,c)=>{s!=="machine.updated"&&s!=="machine.deleted"||a(n=>{if(!n)return n;let h=n.items.findIndex(g=>g.id===c.id);return s==="machine.deleted"?h<0?n:{...n,items:n.items.filter(g=>g.id!==c.id)}:h>=0?{...n,items:n.items.map(g=>g.id===c.id?{...g,...c}:g)}:r.length===1?{...n,items:[c,...n.items]}:n})}),[r.length]);let p=s=>a(c=>c&&!c.items.some(n=>n.id===s.machine.id)?{...c,items:[{...s.machine,task_id:s.task.id},...c.items]}:c),l={};for(let s of Object.values(B.value)){let c=l[s.target_id];(!c||c.created_at<s.created_at)&&(l[s.target_id]=s)}return o`<main id="main">
    <h1>Machines</h1>
    <${y} error=${i} />
    <${ze} onCreated=${p} />
    ${e&&o`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${e.items.map(s=>o`<tr key=${s.id} data-machine=${s.id}>
        <td><a href=${`/machines/${encodeURIComponent(s.id)}`}>${s.name}</a></td>
        <td><${R} value=${s.status} /></td>
        <td>${s.cpu_cores} CPU, ${T(s.memory_mb)}, ${E(s.disk_gb)}</td>
        <td>${l[s.id]?o`<${L} task=${l[s.id]} />`:s.task_id?o`<${L} task=${{id:s.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&o`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>d(r.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>d([...r,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function ze({onCreated:e}){let[a,i]=u(null),t=O(U),[r,d]=u(!1),m=async p=>{p.preventDefault();let l=new FormData(p.target),s={name:l.get("name"),template_id:l.get("template_id")};l.get("plan_id")&&(s.plan_id=l.get("plan_id"));for(let c of["cpu_cores","memory_mb","disk_gb"])l.get(c)&&(s[c]=Number(l.get(c)));i(null);try{e(await v("POST",q,s)),p.target.reset(),d(!1)}catch(c){i(c)}};return r?o`<form class="card" onSubmit=${m} aria-label="New machine">
    <${y} error=${a} />
    <div class="grid">
      <${b} name="name" label="Name" error=${a} required />
      <${K} templates=${t} error=${a} />
      <${b} name="plan_id" label="Plan (optional)" error=${a} />
      <${b} name="cpu_cores" label="CPU cores" error=${a} type="number" min="1" />
      <${b} name="memory_mb" label="Memory (MB)" error=${a} type="number" min="1" />
      <${b} name="disk_gb" label="Disk (GB)" error=${a} type="number" min="1" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`:o`<button class="primary" onClick=${()=>d(!0)}>New machine</button>`}var Ie=N(()=>import("./account-UTN5RLTQ.js"),"Account"),we=F(null),Be=null;function Ge(){return Be||=import("./admin-KWO44RGV.js").then(e=>{we.value=e}),we.value}var Ce=F(!1);se().catch(()=>{}).finally(()=>{Ce.value=!0});var Me=["/account","Account",be],Ue=[["/machines","Machines",Q],Me],qe=[["/admin/dashboard","Dashboard",ge],["/admin/machines","Machines",Q],["/admin/nodes","Nodes",pe],Me];function Le({admin:e}){let a=H.value,i;if(P("/account",a))return o`<${Ie} />`;if(e){let t=Ge();return t?(i=P("/admin/machines/:id",a))?o`<${Z} id=${i.id} admin tenant=${new URLSearchParams(a.split("?")[1]||"").get("tenant")||""} />`:P("/admin/nodes",a)?o`<${t.Nodes} />`:P("/admin/machines",a)?o`<${t.AdminMachines} />`:o`<${t.Dashboard} />`:o`<main id="main"><p>Loading…</p></main>`}return(i=P("/machines/:id",a))?o`<${Z} id=${i.id} />`:o`<${Se} />`}function Ye(){let e=j.value,a=e.user?.role==="admin",i=a?qe:Ue,t=H.value.split("?")[0],r=i[0][0];return(t==="/"||t==="/login"||t!=="/account"&&a!==t.startsWith("/admin"))&&queueMicrotask(()=>W(r,!0)),o`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${r}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${i.map(([d,m,p])=>o`<li><a href=${d} aria-current=${t.startsWith(d)?"page":void 0}><${p} />${m}</a></li>`)}
      </ul></nav>
      <span class="who">${e.user?.email}</span>
      <button class="quiet" onClick=${()=>ne().then(()=>W("/login",!0))}><${fe} />Sign out</button>
    </header>
    <${Le} admin=${a} />`}function Ae(){return Ce.value?j.value?o`<${Ye} />`:o`<${ie} />`:o`<main id="main"><p>Loading…</p></main>`}ae(o`<${Ae} />`,document.getElementById("app"));
