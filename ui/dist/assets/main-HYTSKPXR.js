import{a as j,b as V,c as T}from"./chunk-X6HVTMWJ.js";import{a as I,b as G}from"./chunk-7L5G2KIG.js";import{a as M,b as z}from"./chunk-4V2D6SGB.js";import{a as u,b as S,d as Y,f as A,g as F,h as oe,i as ae,j as v,l as E,m as x,n as R,o as O,p as y,q as b,r as se,s as _}from"./chunk-YGI5HK3D.js";import{f as te,g as t}from"./chunk-XGWGEZEQ.js";function ne(){let[e,n]=u(null),[s,r]=u(null),[i,d]=u(!1);return t`<main id="main" class="login">
    <form onSubmit=${async m=>{m.preventDefault();let l=new FormData(m.target);d(!0),n(null);try{s?await F("login/totp",{challenge:s,code:l.get("code")}):await F("login",{email:l.get("email"),password:l.get("password")})}catch(o){o.code==="totp_required"&&o.challenge?r(o.challenge):n(o)}finally{d(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${y} error=${e} />
      ${s?t`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${b} name="code" label="Code" error=${e} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:t`<${b} name="email" label="E-mail" error=${e} type="email" autocomplete="username" required autofocus />
          <${b} name="password" label="Password" error=${e} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${i}>${s?"Verify":"Sign in"}</button>
    </form>
  </main>`}var B={};function D(e){let[n,s]=u(B[e]?{items:B[e]}:null);return S(()=>{if(B[e])return;let r=!0;return v("GET",e).then(i=>{B[e]=i.items||[],r&&s({items:B[e]})},i=>r&&s({items:[],error:i})),()=>{r=!1}},[e]),n}var q="/api/resources/templates?limit=500",re="/api/resources/plans?limit=200",ie="/api/resources/isos?limit=200";function H(){let[e,n]=u(null);return[e,async r=>{n(null);try{return await r(),!0}catch(i){return n(i),!1}}]}function le({m:e,act:n}){let s=D(ie),[r,i]=H(),[d,p]=u(""),m=(s?.items||[]).filter(l=>l.status==="ready");return t`<${_} id="media-part" title="ISO and rescue">
    <${y} error=${r||s?.error} />
    <p>In the CD-ROM drive: <strong data-media>${e.media?e.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${d} onChange=${l=>p(l.target.value)} aria-describedby=${r?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${s?m.length?"choose an image":"no image is ready":"loading…"}</option>
          ${m.map(l=>t`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${r?.fields?.iso_id&&t`<span class="field-error" id="iso_id-error">${r.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!d||e.rescue} onClick=${()=>i(()=>n("POST","/media",{iso_id:d}))}>Mount</button>
      <button type="button" disabled=${!e.media||e.rescue} onClick=${()=>i(()=>n("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${e.rescue?"on":"off"}</strong>.</p>
    ${e.rescue?t`<${M} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!1}))} />`:t`<${M} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>i(()=>n("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ce({m:e,act:n}){let s=D(q),[r,i]=H(),[d,p]=u(null),m=o=>{o.preventDefault(),p(o.target)},l=async()=>{let o=new FormData(d),c={template_id:o.get("template_id")};o.get("password")&&(c.password=o.get("password"));let a=String(o.get("ssh_keys")||"").split(`
`).map(h=>h.trim()).filter(Boolean);a.length&&(c.ssh_keys=a),await i(()=>n("POST","/reinstall",c))&&d.reset(),p(null)};return t`<${_} id="reinstall-part" title="Reinstall">
    <${y} error=${r||s?.error} />
    <form onSubmit=${m} aria-label="Reinstall">
      <div class="grid">
        <${W} templates=${s} error=${r} value=${e.template_id} />
        <${b} name="password" label="New root password (optional)" error=${r} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${d?t`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${o=>o?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>p(null)}>Cancel</button></p>`:t`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function W({templates:e,error:n,value:s}){let r=n?.fields?.template_id;return t`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${r?"true":void 0} aria-describedby=${r?"template_id-error":void 0}>
      ${!e&&t`<option value="">loading…</option>`}
      ${(e?.items||[]).map(i=>t`<option value=${i.id} selected=${i.id===s}>${i.name}${i.disk_gb?` (at least ${i.disk_gb} GB)`:""}</option>`)}
    </select>
    ${r&&t`<span class="field-error" id="template_id-error">${r}</span>`}
  </label>`}function de({m:e,act:n}){let s=D(re),[r,i]=H(),[d,p]=u(""),m=async l=>{l.preventDefault();let o=new FormData(l.target),c={};for(let a of["cpu_cores","memory_mb","disk_gb"]){let h=Number(o.get(a));o.get(a)&&h!==e[a]&&(c[a]=h)}Object.keys(c).length&&await i(()=>n("PATCH","/resources",c))};return t`<${_} id="resize-part" title="Resize">
    <${y} error=${r||s?.error} />
    ${s?.items?.length>0&&t`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${d} onChange=${l=>p(l.target.value)}>
        <option value="">choose a plan</option>
        ${s.items.map(l=>t`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${E(l.memory_mb)}, ${x(l.disk_gb)}${l.id===e.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!d} onClick=${()=>i(()=>n("POST","/plan",{plan_id:d}))}>Move to plan</button>
    </div>`}
    <form onSubmit=${m} aria-label="Resize">
      <div class="grid">
        <${b} name="cpu_cores" label="CPU cores" error=${r} type="number" min="1" value=${e.cpu_cores} />
        <${b} name="memory_mb" label="Memory (MB)" error=${r} type="number" min="1" value=${e.memory_mb} />
        <${b} name="disk_gb" label="Disk (GB, only grows)" error=${r} type="number" min=${e.disk_gb} value=${e.disk_gb} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var C=e=>()=>t`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${e} /></svg>`,J=C("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),me=C("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),ue=C("M7 4l13 8-13 8z"),K=C("M6 6h12v12H6z"),pe=C("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),$e=C("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),he=C("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),fe=C("M4 18a8 8 0 1 1 16 0M12 18l4-6");function ge(e,n){let[s,r]=u(null),[i,d]=u(null);return S(()=>{let p=!0;return v("GET",e).then(m=>{p&&(r(m),d(null))},m=>p&&d(m)),()=>{p=!1}},[e,n]),[s,i]}function ye({url:e,act:n,ended:s}){let[r,i]=ge(`${e}/backups?limit=100`,s),[d,p]=u(null),[m,l]=u(!0),o=async a=>{p(null);try{return await a(),!0}catch(h){return p(h),!1}};return t`<${_} id="backups-part" title="Backups">
    <${y} error=${d||i} />
    <form class="inline-form" onSubmit=${async a=>{a.preventDefault();let h=new FormData(a.target),g={mode:h.get("mode")};h.get("note")&&(g.note=h.get("note")),await o(()=>n("POST","/backups",g))&&a.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${b} name="note" label="Note (optional)" error=${d} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${m} onChange=${a=>l(a.target.checked)} /> Start the machine after a restore</label>
    ${r&&(r.items.length===0?t`<p>No backups yet.</p>`:t`<div class="table-wrap"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${r.items.map(a=>t`<tr key=${a.id} data-backup=${a.id}>
        <td>${R(a.created_at)}</td><td>${se(a.size_bytes)}</td><td>${a.mode}</td><td>${a.origin}</td><td>${a.note||""}</td>
        <td><${M} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>o(()=>n("POST",`/backups/${encodeURIComponent(a.id)}/restore`,{start_after:m}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function ke({m:e,url:n,act:s,ended:r}){let[i,d]=ge(`${n}/snapshots?limit=200`,r),[p,m]=u(null),l=async a=>{m(null);try{return await a(),!0}catch(h){return m(h),!1}},o=async a=>{a.preventDefault();let h=new FormData(a.target),g={name:h.get("name")};h.get("description")&&(g.description=h.get("description")),h.get("include_memory")&&(g.include_memory=!0),await l(()=>s("POST","/snapshots",g))&&a.target.reset()},c=a=>`/snapshots/${encodeURIComponent(a.name)}`;return t`<${_} id="snapshots-part" title="Snapshots">
    <${y} error=${p||d} />
    <form class="inline-form" onSubmit=${o} aria-label="Take a snapshot">
      <${b} name="name" label="Name" error=${p} required />
      <${b} name="description" label="Description (optional)" error=${p} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${e.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${i&&(i.items.length===0?t`<p>No snapshots.</p>`:t`<div class="table-wrap"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${i.items.map(a=>t`<tr key=${a.name} data-snapshot=${a.name}>
        <td>${a.name}</td><td>${R(a.created_at)}</td><td>${a.includes_memory?"yes":"no"}</td><td>${a.description||""}</td>
        <td class="row-actions">
          <${M} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${a.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>s("POST",`${c(a)}/rollback`))} />
          <${M} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${a.name}?`}
            onYes=${()=>l(()=>s("DELETE",c(a)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}var Te=z(()=>import("./graphs-ECB5J53H.js"),"Graphs"),Ee=z(()=>import("./terminal-M35H5JLS.js"),"Console"),L="/api/client/machines";function U({task:e}){if(!e)return null;let n=I.value[e.id]||e;return t`<span class="task" aria-live="polite">${n.type}: <${O} value=${n.status} />${n.error?t` <span class="field-error">${n.error}</span>`:""}</span>`}var xe=[["start","Start",ue],["stop","Stop",K],["shutdown","Shut down",K],["reboot","Reboot",pe]],Re=[["graphs","Graphs"],["console","Console"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]];function Q({id:e,admin:n}){let[s,r]=u(null),[i,d]=u([]),[p,m]=u(null),[l,o]=u(null),[c,a]=u(0),[h,g]=u(!1),P=`${L}/${encodeURIComponent(e)}`,X=`/api/virt/vms/${encodeURIComponent(e)}`,Z=()=>v("GET",P).then($=>{r($),$.last_task&&o(f=>f||$.last_task)},m);S(()=>{r(null),o(null),m(null),g(!1),Z(),v("GET",`${P}/tasks?limit=20`).then($=>d($.items),()=>{})},[e]),S(()=>G(($,f)=>{$==="machine.updated"&&f.id===e&&r(k=>k&&{...k,...f}),$==="task.updated"&&f.target_id===e&&(d(k=>k.some(w=>w.id===f.id)?k.map(w=>w.id===f.id?f:w):[f,...k]),(f.status==="succeeded"||f.status==="failed")&&(a(k=>k+1),Z()))}),[e]);let ee=async($,f,k)=>{let w=await v($,`${P}${f}`,k);return o(w.task),d(Me=>[w.task,...Me.filter(Pe=>Pe.id!==w.task.id)]),w.task},Ce=async $=>{m(null);try{await ee("POST",`/actions/${$}`)}catch(f){m(f)}},N={m:s,url:P,act:ee,ended:c};return t`<main id="main">
    <p><a href=${n?"/admin/machines":"/machines"}>← Machines</a></p>
    <${y} error=${p} />
    ${s&&t`<h1>${s.name} <${O} value=${s.status} />${s.rescue?t` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Re.map(([$,f])=>t`<li><a href=${`#${$}`}>${f}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${xe.map(([$,f,k])=>t`<button onClick=${()=>Ce($)} data-action=${$}><${k} />${f}</button>`)}
      </div>
      ${l&&t`<p>Last action: <${U} task=${l} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${s.cpu_cores} CPU, ${E(s.memory_mb)} memory, ${x(s.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${s.template_id}</dd>
        <dt>Node</dt><dd>${s.node}</dd>
        <dt>Addresses</dt><dd>${(s.interfaces||[]).flatMap($=>$.ip_addresses||[]).join(", ")||(s.addresses||[]).map($=>$.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${s.media?s.media.name:"none"}</dd>
        <dt>Created</dt><dd>${R(s.created_at)}</dd>
      </dl>
      <div id="graphs"><${_} id="graphs-part" title="Graphs"><${Te} url=${`${n?X:P}/usage-graphs`} /><//></div>
      <div id="console"><${_} id="console-part" title="Serial console">
        ${h?t`<${Ee} url=${`${n?X:P}/console`} /><button type="button" onClick=${()=>g(!1)}>Close console</button>`:t`<button type="button" onClick=${()=>g(!0)}>Open console</button>`}
      <//></div>
      <div id="backups"><${ye} ...${N} /></div>
      <div id="snapshots"><${ke} ...${N} /></div>
      <div id="media"><${le} ...${N} /></div>
      <div id="reinstall"><${ce} ...${N} /></div>
      <div id="resize"><${de} ...${N} /></div>
      <div id="tasks"><${_} id="tasks-part" title="Tasks">
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${i.map($=>t`<tr key=${$.id}><td>${$.type}</td><td><${O} value=${$.status} /></td><td>${R($.created_at)}</td><td>${$.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function ve(){let[e,n]=u(null),[s,r]=u(null),[i,d]=u([""]),p=i[i.length-1];S(()=>{let o=!0;return v("GET",`${L}?limit=50${p?`&cursor=${encodeURIComponent(p)}`:""}`).then(c=>o&&n(c),c=>o&&r(c)),()=>{o=!1}},[p]),S(()=>G((o,c)=>{o!=="machine.updated"&&o!=="machine.deleted"||n(a=>{if(!a)return a;let h=a.items.findIndex(g=>g.id===c.id);return o==="machine.deleted"?h<0?a:{...a,items:a.items.filter(g=>g.id!==c.id)}:h>=0?{...a,items:a.items.map(g=>g.id===c.id?{...g,...c}:g)}:i.length===1?{...a,items:[c,...a.items]}:a})}),[i.length]);let m=o=>n(c=>c&&!c.items.some(a=>a.id===o.machine.id)?{...c,items:[{...o.machine,task_id:o.task.id},...c.items]}:c),l={};for(let o of Object.values(I.value)){let c=l[o.target_id];(!c||c.created_at<o.created_at)&&(l[o.target_id]=o)}return t`<main id="main">
    <h1>Machines</h1>
    <${y} error=${s} />
    <${Oe} onCreated=${m} />
    ${e&&t`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${e.items.map(o=>t`<tr key=${o.id} data-machine=${o.id}>
        <td><a href=${`/machines/${encodeURIComponent(o.id)}`}>${o.name}</a></td>
        <td><${O} value=${o.status} /></td>
        <td>${o.cpu_cores} CPU, ${E(o.memory_mb)}, ${x(o.disk_gb)}</td>
        <td>${l[o.id]?t`<${U} task=${l[o.id]} />`:o.task_id?t`<${U} task=${{id:o.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&t`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>d(i.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>d([...i,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Oe({onCreated:e}){let[n,s]=u(null),r=D(q),[i,d]=u(!1),p=async m=>{m.preventDefault();let l=new FormData(m.target),o={name:l.get("name"),template_id:l.get("template_id")};l.get("plan_id")&&(o.plan_id=l.get("plan_id"));for(let c of["cpu_cores","memory_mb","disk_gb"])l.get(c)&&(o[c]=Number(l.get(c)));s(null);try{e(await v("POST",L,o)),m.target.reset(),d(!1)}catch(c){s(c)}};return i?t`<form class="card" onSubmit=${p} aria-label="New machine">
    <${y} error=${n} />
    <div class="grid">
      <${b} name="name" label="Name" error=${n} required />
      <${W} templates=${r} error=${n} />
      <${b} name="plan_id" label="Plan (optional)" error=${n} />
      <${b} name="cpu_cores" label="CPU cores" error=${n} type="number" min="1" />
      <${b} name="memory_mb" label="Memory (MB)" error=${n} type="number" min="1" />
      <${b} name="disk_gb" label="Disk (GB)" error=${n} type="number" min="1" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`:t`<button class="primary" onClick=${()=>d(!0)}>New machine</button>`}var De=z(()=>import("./account-UTN5RLTQ.js"),"Account"),_e=Y(null),Ne=null;function ze(){return Ne||=import("./admin-ZHWR3KMZ.js").then(e=>{_e.value=e}),_e.value}var Se=Y(!1);oe().catch(()=>{}).finally(()=>{Se.value=!0});var we=["/account","Account",he],Be=[["/machines","Machines",J],we],Ie=[["/admin/dashboard","Dashboard",fe],["/admin/machines","Machines",J],["/admin/nodes","Nodes",me],we];function Ge({admin:e}){let n=j.value,s;if(T("/account",n))return t`<${De} />`;if(e){let r=ze();return r?(s=T("/admin/machines/:id",n))?t`<${Q} id=${s.id} admin />`:T("/admin/nodes",n)?t`<${r.Nodes} />`:T("/admin/machines",n)?t`<${r.AdminMachines} />`:t`<${r.Dashboard} />`:t`<main id="main"><p>Loading…</p></main>`}return(s=T("/machines/:id",n))?t`<${Q} id=${s.id} />`:t`<${ve} />`}function qe(){let e=A.value,n=e.user?.role==="admin",s=n?Ie:Be,r=j.value.split("?")[0],i=s[0][0];return(r==="/"||r==="/login"||r!=="/account"&&n!==r.startsWith("/admin"))&&queueMicrotask(()=>V(i,!0)),t`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${i}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${s.map(([d,p,m])=>t`<li><a href=${d} aria-current=${r.startsWith(d)?"page":void 0}><${m} />${p}</a></li>`)}
      </ul></nav>
      <span class="who">${e.user?.email}</span>
      <button class="quiet" onClick=${()=>ae().then(()=>V("/login",!0))}><${$e} />Sign out</button>
    </header>
    <${Ge} admin=${n} />`}function Le(){return Se.value?A.value?t`<${qe} />`:t`<${ne} />`:t`<main id="main"><p>Loading…</p></main>`}te(t`<${Le} />`,document.getElementById("app"));
