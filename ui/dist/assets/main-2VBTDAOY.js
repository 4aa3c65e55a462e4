import{a as W,b as J,c as M}from"./chunk-WVDH4FHW.js";import{a as N,b as G}from"./chunk-2NVP2KN5.js";import{a as O}from"./chunk-V7JAOVWQ.js";import{a as P}from"./chunk-NTSTDLMV.js";import{a as p,b as S,d as V,f as j,g as H,h as re,i as ie,j as v,l as T,m as E,n as R,o as x,p as y,q as b,r as le,s as _}from"./chunk-CR4Y5RIL.js";import{f as ne,g as a}from"./chunk-XGWGEZEQ.js";function ce(){let[e,o]=p(null),[i,t]=p(null),[r,d]=p(!1);return a`<main id="main" class="login">
    <form onSubmit=${async $=>{$.preventDefault();let l=new FormData($.target);d(!0),o(null);try{i?await H("login/totp",{challenge:i,code:l.get("code")}):await H("login",{email:l.get("email"),password:l.get("password")})}catch(s){s.code==="totp_required"&&s.challenge?t(s.challenge):o(s)}finally{d(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${y} error=${e} />
      ${i?a`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${b} key="code" name="code" label="Code" error=${e} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:a`<${b} key="email" name="email" label="E-mail" error=${e} type="email" autocomplete="username" required autofocus />
          <${b} name="password" label="Password" error=${e} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${r}>${i?"Verify":"Sign in"}</button>
    </form>
  </main>`}var I={};function D(e){let[o,i]=p(I[e]?{items:I[e]}:null);return S(()=>{if(I[e])return;let t=!0;return v("GET",e).then(r=>{I[e]=r.items||[],t&&i({items:I[e]})},r=>t&&i({items:[],error:r})),()=>{t=!1}},[e]),o}var U="/api/resources/templates?limit=500",de="/api/resources/plans?limit=200",me="/api/resources/isos?limit=200";function Q(){let[e,o]=p(null);return[e,async t=>{o(null);try{return await t(),!0}catch(r){return o(r),!1}}]}function ue({m:e,act:o}){let i=D(me),[t,r]=Q(),[d,m]=p(""),$=(i?.items||[]).filter(l=>l.status==="ready");return a`<${_} id="media-part" title="ISO and rescue">
    <${y} error=${t||i?.error} />
    <p>In the CD-ROM drive: <strong data-media>${e.media?e.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${d} onChange=${l=>m(l.target.value)} aria-describedby=${t?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${i?$.length?"choose an image":"no image is ready":"loading…"}</option>
          ${$.map(l=>a`<option value=${l.id}>${l.name}</option>`)}
        </select>
        ${t?.fields?.iso_id&&a`<span class="field-error" id="iso_id-error">${t.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!d||e.rescue} onClick=${()=>r(()=>o("POST","/media",{iso_id:d}))}>Mount</button>
      <button type="button" disabled=${!e.media||e.rescue} onClick=${()=>r(()=>o("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${e.rescue?"on":"off"}</strong>.</p>
    ${e.rescue?a`<${P} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>r(()=>o("POST","/rescue",{enabled:!1}))} />`:a`<${P} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>r(()=>o("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function pe({m:e,act:o}){let i=D(U),[t,r]=Q(),[d,m]=p(null),$=s=>{s.preventDefault(),m(s.target)},l=async()=>{let s=new FormData(d),c={template_id:s.get("template_id")};s.get("password")&&(c.password=s.get("password"));let n=String(s.get("ssh_keys")||"").split(`
`).map(f=>f.trim()).filter(Boolean);n.length&&(c.ssh_keys=n),await r(()=>o("POST","/reinstall",c))&&d.reset(),m(null)};return a`<${_} id="reinstall-part" title="Reinstall">
    <${y} error=${t||i?.error} />
    <form onSubmit=${$} aria-label="Reinstall">
      <div class="grid">
        <${X} templates=${i} error=${t} value=${e.template_id} />
        <${b} name="password" label="New root password (optional)" error=${t} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${d?a`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${s=>s?.focus()} onClick=${l}>Yes, reinstall</button>
            <button type="button" onClick=${()=>m(null)}>Cancel</button></p>`:a`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function X({templates:e,error:o,value:i}){let t=o?.fields?.template_id;return a`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${t?"true":void 0} aria-describedby=${t?"template_id-error":void 0}>
      ${!e&&a`<option value="">loading…</option>`}
      ${(e?.items||[]).map(r=>a`<option value=${r.id} selected=${r.id===i}>${r.name}${r.disk_gb?` (at least ${r.disk_gb} GB)`:""}</option>`)}
    </select>
    ${t&&a`<span class="field-error" id="template_id-error">${t}</span>`}
  </label>`}var K=e=>o=>{o&&!o.dataset.filled&&(o.value=e,o.dataset.filled="1")};function $e({m:e,act:o}){let i=D(de),[t,r]=Q(),[d,m]=p(""),$=async l=>{l.preventDefault();let s=new FormData(l.target),c={};for(let n of["cpu_cores","memory_mb","disk_gb"]){let f=Number(s.get(n));s.get(n)&&f!==e[n]&&(c[n]=f)}Object.keys(c).length&&await r(()=>o("PATCH","/resources",c))};return a`<${_} id="resize-part" title="Resize">
    <${y} error=${t||i?.error} />
    ${i?.items?.length>0&&a`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${d} onChange=${l=>m(l.target.value)}>
        <option value="">choose a plan</option>
        ${i.items.map(l=>a`<option value=${l.id}>${l.name}: ${l.cpu_cores} CPU, ${T(l.memory_mb)}, ${E(l.disk_gb)}${l.id===e.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!d} onClick=${()=>r(()=>o("POST","/plan",{plan_id:d}))}>Move to plan</button>
    </div>`}
    <form key=${`${e.cpu_cores}/${e.memory_mb}/${e.disk_gb}`} onSubmit=${$} aria-label="Resize">
      <div class="grid">
        <${b} name="cpu_cores" label="CPU cores" error=${t} type="number" min="1" inputRef=${K(e.cpu_cores)} />
        <${b} name="memory_mb" label="Memory (MB)" error=${t} type="number" min="1" inputRef=${K(e.memory_mb)} />
        <${b} name="disk_gb" label="Disk (GB, only grows)" error=${t} type="number" min=${e.disk_gb} inputRef=${K(e.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var C=e=>()=>a`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${e} /></svg>`,Z=C("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),fe=C("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),he=C("M7 4l13 8-13 8z"),ee=C("M6 6h12v12H6z"),be=C("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),ge=C("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),ye=C("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),ke=C("M4 18a8 8 0 1 1 16 0M12 18l4-6"),ve=C("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z");function Se(e,o){let[i,t]=p(null),[r,d]=p(null);return S(()=>{let m=!0;return v("GET",e).then($=>{m&&(t($),d(null))},$=>m&&d($)),()=>{m=!1}},[e,o]),[i,r]}function we({at:e,act:o,ended:i}){let[t,r]=Se(e("/backups?limit=100"),i),[d,m]=p(null),[$,l]=p(!0),s=async n=>{m(null);try{return await n(),!0}catch(f){return m(f),!1}};return a`<${_} id="backups-part" title="Backups">
    <${y} error=${d||r} />
    <form class="inline-form" onSubmit=${async n=>{n.preventDefault();let f=new FormData(n.target),g={mode:f.get("mode")};f.get("note")&&(g.note=f.get("note")),await s(()=>o("POST","/backups",g))&&n.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${b} name="note" label="Note (optional)" error=${d} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${$} onChange=${n=>l(n.target.checked)} /> Start the machine after a restore</label>
    ${t&&(t.items.length===0?a`<p>No backups yet.</p>`:a`<div class="table-wrap"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${t.items.map(n=>a`<tr key=${n.id} data-backup=${n.id}>
        <td>${R(n.created_at)}</td><td>${le(n.size_bytes)}</td><td>${n.mode}</td><td>${n.origin}</td><td>${n.note||""}</td>
        <td><${P} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>s(()=>o("POST",`/backups/${encodeURIComponent(n.id)}/restore`,{start_after:$}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function Ce({m:e,at:o,act:i,ended:t}){let[r,d]=Se(o("/snapshots?limit=200"),t),[m,$]=p(null),l=async n=>{$(null);try{return await n(),!0}catch(f){return $(f),!1}},s=async n=>{n.preventDefault();let f=new FormData(n.target),g={name:f.get("name")};f.get("description")&&(g.description=f.get("description")),f.get("include_memory")&&(g.include_memory=!0),await l(()=>i("POST","/snapshots",g))&&n.target.reset()},c=n=>`/snapshots/${encodeURIComponent(n.name)}`;return a`<${_} id="snapshots-part" title="Snapshots">
    <${y} error=${m||d} />
    <form class="inline-form" onSubmit=${s} aria-label="Take a snapshot">
      <${b} name="name" label="Name" error=${m} required />
      <${b} name="description" label="Description (optional)" error=${m} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${e.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${r&&(r.items.length===0?a`<p>No snapshots.</p>`:a`<div class="table-wrap"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${r.items.map(n=>a`<tr key=${n.name} data-snapshot=${n.name}>
        <td>${n.name}</td><td>${R(n.created_at)}</td><td>${n.includes_memory?"yes":"no"}</td><td>${n.description||""}</td>
        <td class="row-actions">
          <${P} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${n.name}? Changes since it are lost.`}
            onYes=${()=>l(()=>i("POST",`${c(n)}/rollback`))} />
          <${P} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${n.name}?`}
            onYes=${()=>l(()=>i("DELETE",c(n)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}var Oe=O(()=>import("./graphs-77ZVZXSQ.js"),"Graphs"),De=O(()=>import("./terminal-O56LSUA3.js"),"Console"),q="/api/client/machines";function F({task:e}){if(!e)return null;let o=N.value[e.id]||e;return a`<span class="task" aria-live="polite">${o.type}: <${x} value=${o.status} />${o.error?a` <span class="field-error">${o.error}</span>`:""}</span>`}var ze=[["start","Start",he],["stop","Stop",ee],["shutdown","Shut down",ee],["reboot","Reboot",be]],Ne=[["graphs","Graphs"],["console","Console"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],Ie=(e,o)=>i=>{let t=`${e}${i}`;return o?`${t}${t.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(o)}`:t};function te({id:e,admin:o,tenant:i}){let[t,r]=p(null),[d,m]=p([]),[$,l]=p(null),[s,c]=p(null),[n,f]=p(0),[g,L]=p(!1),Y=`${q}/${encodeURIComponent(e)}`,oe=`/api/virt/vms/${encodeURIComponent(e)}`,B=Ie(Y,o?i:""),ae=()=>v("GET",B("")).then(u=>{r(u),u.last_task&&c(h=>h||u.last_task)},l);S(()=>{r(null),c(null),l(null),L(!1),ae(),v("GET",B("/tasks?limit=20")).then(u=>m(u.items),()=>{})},[e,i]),S(()=>G((u,h)=>{u==="machine.updated"&&h.id===e&&r(k=>k&&{...k,...h}),u==="task.updated"&&h.target_id===e&&(m(k=>k.some(w=>w.id===h.id)?k.map(w=>w.id===h.id?h:w):[h,...k]),(h.status==="succeeded"||h.status==="failed")&&(f(k=>k+1),ae()))}),[e]);let se=async(u,h,k)=>{let w=await v(u,B(h),k);return c(w.task),m(A=>A.some(xe=>xe.id===w.task.id)?A:[w.task,...A]),w.task},Re=async u=>{l(null);try{await se("POST",`/actions/${u}`)}catch(h){l(h)}},z={m:t,at:B,act:se,ended:n};return a`<main id="main">
    <p><a href=${o?"/admin/machines":"/machines"}>← Machines</a></p>
    <${y} error=${$} />
    ${t&&a`<h1>${t.name} <${x} value=${t.status} />${t.rescue?a` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Ne.map(([u,h])=>a`<li><a href=${`#${u}`}>${h}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${ze.map(([u,h,k])=>a`<button onClick=${()=>Re(u)} data-action=${u}><${k} />${h}</button>`)}
      </div>
      ${s&&a`<p>Last action: <${F} task=${s} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${t.cpu_cores} CPU, ${T(t.memory_mb)} memory, ${E(t.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${t.template_id}</dd>
        <dt>Node</dt><dd>${t.node}</dd>
        <dt>Addresses</dt><dd>${(t.interfaces||[]).flatMap(u=>u.ip_addresses||[]).join(", ")||(t.addresses||[]).map(u=>u.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${t.media?t.media.name:"none"}</dd>
        <dt>Created</dt><dd>${R(t.created_at)}</dd>
      </dl>
      <div id="graphs"><${_} id="graphs-part" title="Graphs"><${Oe} url=${`${o?oe:Y}/usage-graphs`} /><//></div>
      <div id="console"><${_} id="console-part" title="Serial console">
        ${g?a`<${De} url=${`${o?oe:Y}/console`} /><button type="button" onClick=${()=>L(!1)}>Close console</button>`:a`<button type="button" onClick=${()=>L(!0)}>Open console</button>`}
      <//></div>
      <div id="backups"><${we} ...${z} /></div>
      <div id="snapshots"><${Ce} ...${z} /></div>
      <div id="media"><${ue} ...${z} /></div>
      <div id="reinstall"><${pe} ...${z} /></div>
      <div id="resize"><${$e} ...${z} /></div>
      <div id="tasks"><${_} id="tasks-part" title="Tasks">
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${d.map(u=>N.value[u.id]||u).map(u=>a`<tr key=${u.id}><td>${u.type}</td><td><${x} value=${u.status} /></td><td>${R(u.created_at)}</td><td>${u.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function Me(){let[e,o]=p(null),[i,t]=p(null),[r,d]=p([""]),m=r[r.length-1];S(()=>{let s=!0;return v("GET",`${q}?limit=50${m?`&cursor=${encodeURIComponent(m)}`:""}`).then(c=>s&&o(c),c=>s&&t(c)),()=>{s=!1}},[m]),S(()=>G((s,c)=>{s!=="machine.updated"&&s!=="machine.deleted"||o(n=>{if(!n)return n;let f=n.items.findIndex(g=>g.id===c.id);return s==="machine.deleted"?f<0?n:{...n,items:n.items.filter(g=>g.id!==c.id)}:f>=0?{...n,items:n.items.map(g=>g.id===c.id?{...g,...c}:g)}:r.length===1?{...n,items:[c,...n.items]}:n})}),[r.length]);let $=s=>o(c=>c&&!c.items.some(n=>n.id===s.machine.id)?{...c,items:[{...s.machine,task_id:s.task.id},...c.items]}:c),l={};for(let s of Object.values(N.value)){let c=l[s.target_id];(!c||c.created_at<s.created_at)&&(l[s.target_id]=s)}return a`<main id="main">
    <h1>Machines</h1>
    <${y} error=${i} />
    <${Be} onCreated=${$} />
    ${e&&a`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${e.items.map(s=>a`<tr key=${s.id} data-machine=${s.id}>
        <td><a href=${`/machines/${encodeURIComponent(s.id)}`}>${s.name}</a></td>
        <td><${x} value=${s.status} /></td>
        <td>${s.cpu_cores} CPU, ${T(s.memory_mb)}, ${E(s.disk_gb)}</td>
        <td>${l[s.id]?a`<${F} task=${l[s.id]} />`:s.task_id?a`<${F} task=${{id:s.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&a`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${r.length===1} onClick=${()=>d(r.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>d([...r,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function Be({onCreated:e}){let[o,i]=p(null),t=D(U),[r,d]=p(!1),m=async $=>{$.preventDefault();let l=new FormData($.target),s={name:l.get("name"),template_id:l.get("template_id")};l.get("plan_id")&&(s.plan_id=l.get("plan_id"));for(let c of["cpu_cores","memory_mb","disk_gb"])l.get(c)&&(s[c]=Number(l.get(c)));i(null);try{e(await v("POST",q,s)),$.target.reset(),d(!1)}catch(c){i(c)}};return r?a`<form class="card" onSubmit=${m} aria-label="New machine">
    <${y} error=${o} />
    <div class="grid">
      <${b} name="name" label="Name" error=${o} required />
      <${X} templates=${t} error=${o} />
      <${b} name="plan_id" label="Plan (optional)" error=${o} />
      <${b} name="cpu_cores" label="CPU cores" error=${o} type="number" min="1" />
      <${b} name="memory_mb" label="Memory (MB)" error=${o} type="number" min="1" />
      <${b} name="disk_gb" label="Disk (GB)" error=${o} type="number" min="1" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`:a`<button class="primary" onClick=${()=>d(!0)}>New machine</button>`}var Ge=O(()=>import("./account-ZP4C6PHN.js"),"Account"),Ue=O(()=>import("./firewall-ON74TIFU.js"),"Firewall"),Pe=V(null),qe=null;function Fe(){return qe||=import("./admin-IRSUZFHC.js").then(e=>{Pe.value=e}),Pe.value}var Te=V(!1);re().catch(()=>{}).finally(()=>{Te.value=!0});var Ee=["/account","Account",ye],Le=[["/machines","Machines",Z],["/firewall","Firewall",ve],Ee],Ye=[["/admin/dashboard","Dashboard",ke],["/admin/machines","Machines",Z],["/admin/nodes","Nodes",fe],Ee];function Ae({admin:e}){let o=W.value,i;if(M("/account",o))return a`<${Ge} />`;if(e){let t=Fe();return t?(i=M("/admin/machines/:id",o))?a`<${te} id=${i.id} admin tenant=${new URLSearchParams(o.split("?")[1]||"").get("tenant")||""} />`:M("/admin/nodes",o)?a`<${t.Nodes} />`:M("/admin/machines",o)?a`<${t.AdminMachines} />`:a`<${t.Dashboard} />`:a`<main id="main"><p>Loading…</p></main>`}return(i=M("/machines/:id",o))?a`<${te} id=${i.id} />`:M("/firewall",o)?a`<${Ue} />`:a`<${Me} />`}function Ve(){let e=j.value,o=e.user?.role==="admin",i=o?Ye:Le,t=W.value.split("?")[0],r=i[0][0];return(t==="/"||t==="/login"||t!=="/account"&&o!==t.startsWith("/admin"))&&queueMicrotask(()=>J(r,!0)),a`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${r}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${i.map(([d,m,$])=>a`<li><a href=${d} aria-current=${t.startsWith(d)?"page":void 0}><${$} />${m}</a></li>`)}
      </ul></nav>
      <span class="who">${e.user?.email}</span>
      <button class="quiet" onClick=${()=>ie().then(()=>J("/login",!0))}><${ge} />Sign out</button>
    </header>
    <${Ae} admin=${o} />`}function je(){return Te.value?j.value?a`<${Ve} />`:a`<${ce} />`:a`<main id="main"><p>Loading…</p></main>`}ne(a`<${je} />`,document.getElementById("app"));
