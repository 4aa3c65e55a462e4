import{a as N,b as I}from"./chunk-6VEEHQP2.js";import{a as H,b as W,c as _}from"./chunk-WREHZWVI.js";import{a as w}from"./chunk-DWKZJOBD.js";import{a as z,c as U,d as le,e as ce}from"./chunk-AG4AM4VR.js";import{a as T}from"./chunk-6PNQ3PEV.js";import{a as $,b as P,e as A,g as V,h as j,i as se,j as re,k as C,m as R,n as x,o as E,p as O,q as y,r as b,s as ie,t as S}from"./chunk-FIHVQ2RM.js";import{f as ne,g as e}from"./chunk-XGWGEZEQ.js";function de(){let[a,t]=$(null),[i,o]=$(null),[l,d]=$(!1);return e`<main id="main" class="login">
    <form onSubmit=${async p=>{p.preventDefault();let r=new FormData(p.target);d(!0),t(null);try{i?await j("login/totp",{challenge:i,code:r.get("code")}):await j("login",{email:r.get("email"),password:r.get("password")})}catch(n){n.code==="totp_required"&&n.challenge?o(n.challenge):t(n)}finally{d(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${y} error=${a} />
      ${i?e`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${b} key="code" name="code" label="Code" error=${a} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:e`<${b} key="email" name="email" label="E-mail" error=${a} type="email" autocomplete="username" required autofocus />
          <${b} name="password" label="Password" error=${a} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${l}>${i?"Verify":"Sign in"}</button>
    </form>
  </main>`}function K(){let[a,t]=$(null);return[a,async o=>{t(null);try{return await o(),!0}catch(l){return t(l),!1}}]}function me({m:a,act:t}){let i=z(ce),[o,l]=K(),[d,m]=$(""),p=(i?.items||[]).filter(r=>r.status==="ready");return e`<${S} id="media-part" title="ISO and rescue">
    <${y} error=${o||i?.error} />
    <p>In the CD-ROM drive: <strong data-media>${a.media?a.media.name:"nothing"}</strong></p>
    <div class="inline-form">
      <label class="field"><span>ISO image</span>
        <select name="iso_id" value=${d} onChange=${r=>m(r.target.value)} aria-describedby=${o?.fields?.iso_id?"iso_id-error":void 0}>
          <option value="">${i?p.length?"choose an image":"no image is ready":"loading…"}</option>
          ${p.map(r=>e`<option value=${r.id}>${r.name}</option>`)}
        </select>
        ${o?.fields?.iso_id&&e`<span class="field-error" id="iso_id-error">${o.fields.iso_id}</span>`}
      </label>
      <button type="button" disabled=${!d||a.rescue} onClick=${()=>l(()=>t("POST","/media",{iso_id:d}))}>Mount</button>
      <button type="button" disabled=${!a.media||a.rescue} onClick=${()=>l(()=>t("DELETE","/media"))}>Eject</button>
    </div>
    <p>Rescue mode boots the operator's rescue image with the machine's disks attached. It is <strong data-rescue>${a.rescue?"on":"off"}</strong>.</p>
    ${a.rescue?e`<${T} name="rescue-off" label="Turn rescue off" yes="Yes, turn it off" question="Eject the rescue image and restart the machine from its disk?"
          onYes=${()=>l(()=>t("POST","/rescue",{enabled:!1}))} />`:e`<${T} name="rescue-on" label="Turn rescue on" yes="Yes, restart into rescue" question="Restart the machine into the rescue image?"
          onYes=${()=>l(()=>t("POST","/rescue",{enabled:!0}))} />`}
  <//>`}function ue({m:a,act:t}){let i=z(U),[o,l]=K(),[d,m]=$(null),p=n=>{n.preventDefault(),m(n.target)},r=async()=>{let n=new FormData(d),c={template_id:n.get("template_id")};n.get("password")&&(c.password=n.get("password"));let s=String(n.get("ssh_keys")||"").split(`
`).map(h=>h.trim()).filter(Boolean);s.length&&(c.ssh_keys=s),await l(()=>t("POST","/reinstall",c))&&d.reset(),m(null)};return e`<${S} id="reinstall-part" title="Reinstall">
    <${y} error=${o||i?.error} />
    <form onSubmit=${p} aria-label="Reinstall">
      <div class="grid">
        <${Q} templates=${i} error=${o} value=${a.template_id} />
        <${b} name="password" label="New root password (optional)" error=${o} type="password" autocomplete="new-password" />
      </div>
      <label class="field"><span>SSH public keys (optional, one a line)</span><textarea name="ssh_keys" rows="2"></textarea></label>
      ${d?e`<p class="confirm" role="group" aria-label="Confirm the reinstall"><span>Erase the system disk and install it again? Its data is lost.</span>
            <button type="button" class="danger" data-confirm-yes="reinstall" ref=${n=>n?.focus()} onClick=${r}>Yes, reinstall</button>
            <button type="button" onClick=${()=>m(null)}>Cancel</button></p>`:e`<button type="submit" data-confirm="reinstall">Reinstall</button>`}
    </form>
  <//>`}function Q({templates:a,error:t,value:i}){let o=t?.fields?.template_id;return e`<label class="field"><span>Template</span>
    <select name="template_id" required aria-invalid=${o?"true":void 0} aria-describedby=${o?"template_id-error":void 0}>
      ${!a&&e`<option value="">loading…</option>`}
      ${(a?.items||[]).map(l=>e`<option value=${l.id} selected=${l.id===i}>${l.name}${l.disk_gb?` (at least ${l.disk_gb} GB)`:""}</option>`)}
    </select>
    ${o&&e`<span class="field-error" id="template_id-error">${o}</span>`}
  </label>`}var J=a=>t=>{t&&!t.dataset.filled&&(t.value=a,t.dataset.filled="1")};function pe({m:a,act:t}){let i=z(le),[o,l]=K(),[d,m]=$(""),p=async r=>{r.preventDefault();let n=new FormData(r.target),c={};for(let s of["cpu_cores","memory_mb","disk_gb"]){let h=Number(n.get(s));n.get(s)&&h!==a[s]&&(c[s]=h)}Object.keys(c).length&&await l(()=>t("PATCH","/resources",c))};return e`<${S} id="resize-part" title="Resize">
    <${y} error=${o||i?.error} />
    ${i?.items?.length>0&&e`<div class="inline-form">
      <label class="field"><span>Plan</span><select name="plan_id" value=${d} onChange=${r=>m(r.target.value)}>
        <option value="">choose a plan</option>
        ${i.items.map(r=>e`<option value=${r.id}>${r.name}: ${r.cpu_cores} CPU, ${R(r.memory_mb)}, ${x(r.disk_gb)}${r.id===a.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!d} onClick=${()=>l(()=>t("POST","/plan",{plan_id:d}))}>Move to plan</button>
    </div>`}
    <form key=${`${a.cpu_cores}/${a.memory_mb}/${a.disk_gb}`} onSubmit=${p} aria-label="Resize">
      <div class="grid">
        <${b} name="cpu_cores" label="CPU cores" error=${o} type="number" min="1" inputRef=${J(a.cpu_cores)} />
        <${b} name="memory_mb" label="Memory (MB)" error=${o} type="number" min="1" inputRef=${J(a.memory_mb)} />
        <${b} name="disk_gb" label="Disk (GB, only grows)" error=${o} type="number" min=${a.disk_gb} inputRef=${J(a.disk_gb)} />
      </div>
      <button type="submit">Resize</button>
    </form>
  <//>`}var v=a=>()=>e`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${a} /></svg>`,X=v("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),$e=v("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),he=v("M7 4l13 8-13 8z"),Z=v("M6 6h12v12H6z"),fe=v("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),be=v("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10"),ge=v("M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21a8 8 0 0 1 16 0"),ye=v("M4 18a8 8 0 1 1 16 0M12 18l4-6"),ke=v("M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z"),ve=v("M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18zM12 7v5l3 2"),_e=v("M9 11a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM2 21a7 7 0 0 1 14 0M16 3.5a4 4 0 0 1 0 7M18 14a7 7 0 0 1 4 7"),Se=v("M3 7l9-4 9 4v10l-9 4-9-4zM3 7l9 4 9-4M12 11v10");function Me(a,t){let[i,o]=$(null),[l,d]=$(null);return P(()=>{let m=!0;return C("GET",a).then(p=>{m&&(o(p),d(null))},p=>m&&d(p)),()=>{m=!1}},[a,t]),[i,l]}function Ce({at:a,act:t,ended:i}){let[o,l]=Me(a("/backups?limit=100"),i),[d,m]=$(null),[p,r]=$(!0),n=async s=>{m(null);try{return await s(),!0}catch(h){return m(h),!1}};return e`<${S} id="backups-part" title="Backups">
    <${y} error=${d||l} />
    <form class="inline-form" onSubmit=${async s=>{s.preventDefault();let h=new FormData(s.target),g={mode:h.get("mode")};h.get("note")&&(g.note=h.get("note")),await n(()=>t("POST","/backups",g))&&s.target.reset()}} aria-label="Take a backup">
      <label class="field"><span>Mode</span><select name="mode">
        <option value="snapshot">snapshot (the machine keeps running)</option>
        <option value="suspend">suspend</option><option value="stop">stop</option></select></label>
      <${b} name="note" label="Note (optional)" error=${d} maxlength="200" />
      <button type="submit" class="primary">Take a backup now</button>
    </form>
    <label class="check"><input type="checkbox" checked=${p} onChange=${s=>r(s.target.checked)} /> Start the machine after a restore</label>
    ${o&&(o.items.length===0?e`<p>No backups yet.</p>`:e`<div class="table-wrap"><table>
      <caption class="sr-only">Backups, newest first</caption>
      <thead><tr><th scope="col">Taken</th><th scope="col">Size</th><th scope="col">Mode</th><th scope="col">Origin</th><th scope="col">Note</th><th scope="col">Actions</th></tr></thead>
      <tbody>${o.items.map(s=>e`<tr key=${s.id} data-backup=${s.id}>
        <td>${E(s.created_at)}</td><td>${ie(s.size_bytes)}</td><td>${s.mode}</td><td>${s.origin}</td><td>${s.note||""}</td>
        <td><${T} name="restore" label="Restore" yes="Yes, restore"
          question="Replace the machine's disks and configuration with this backup?"
          onYes=${()=>n(()=>t("POST",`/backups/${encodeURIComponent(s.id)}/restore`,{start_after:p}))} /></td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}function Pe({m:a,at:t,act:i,ended:o}){let[l,d]=Me(t("/snapshots?limit=200"),o),[m,p]=$(null),r=async s=>{p(null);try{return await s(),!0}catch(h){return p(h),!1}},n=async s=>{s.preventDefault();let h=new FormData(s.target),g={name:h.get("name")};h.get("description")&&(g.description=h.get("description")),h.get("include_memory")&&(g.include_memory=!0),await r(()=>i("POST","/snapshots",g))&&s.target.reset()},c=s=>`/snapshots/${encodeURIComponent(s.name)}`;return e`<${S} id="snapshots-part" title="Snapshots">
    <${y} error=${m||d} />
    <form class="inline-form" onSubmit=${n} aria-label="Take a snapshot">
      <${b} name="name" label="Name" error=${m} required />
      <${b} name="description" label="Description (optional)" error=${m} />
      <label class="check"><input type="checkbox" name="include_memory" disabled=${a.status!=="running"} /> With memory (a running machine)</label>
      <button type="submit" class="primary">Take a snapshot</button>
    </form>
    ${l&&(l.items.length===0?e`<p>No snapshots.</p>`:e`<div class="table-wrap"><table>
      <caption class="sr-only">Snapshots, oldest first</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Taken</th><th scope="col">Memory</th><th scope="col">Description</th><th scope="col">Actions</th></tr></thead>
      <tbody>${l.items.map(s=>e`<tr key=${s.name} data-snapshot=${s.name}>
        <td>${s.name}</td><td>${E(s.created_at)}</td><td>${s.includes_memory?"yes":"no"}</td><td>${s.description||""}</td>
        <td class="row-actions">
          <${T} name="rollback" label="Roll back" yes="Yes, roll back" question=${`Go back to ${s.name}? Changes since it are lost.`}
            onYes=${()=>r(()=>i("POST",`${c(s)}/rollback`))} />
          <${T} name="delete" label="Delete" yes="Yes, delete" question=${`Delete the snapshot ${s.name}?`}
            onYes=${()=>r(()=>i("DELETE",c(s)))} />
        </td>
      </tr>`)}</tbody></table></div>`)}
  <//>`}var De=w(()=>import("./graphs-5XGK7KGY.js"),"Graphs"),Ne=w(()=>import("./terminal-RU4E4B4N.js"),"Console"),q="/api/client/machines";function F({task:a}){if(!a)return null;let t=N.value[a.id]||a;return e`<span class="task" aria-live="polite">${t.type}: <${O} value=${t.status} />${t.error?e` <span class="field-error">${t.error}</span>`:""}</span>`}var Be=[["start","Start",he],["stop","Stop",Z],["shutdown","Shut down",Z],["reboot","Reboot",fe]],Ie=[["graphs","Graphs"],["console","Console"],["backups","Backups"],["snapshots","Snapshots"],["media","ISO and rescue"],["reinstall","Reinstall"],["resize","Resize"],["tasks","Tasks"]],Ue=(a,t)=>i=>{let o=`${a}${i}`;return t?`${o}${o.includes("?")?"&":"?"}tenant_id=${encodeURIComponent(t)}`:o};function ee({id:a,admin:t,tenant:i}){let[o,l]=$(null),[d,m]=$([]),[p,r]=$(null),[n,c]=$(null),[s,h]=$(0),[g,G]=$(!1),L=`${q}/${encodeURIComponent(a)}`,te=`/api/virt/vms/${encodeURIComponent(a)}`,B=Ue(L,t?i:""),ae=()=>C("GET",B("")).then(u=>{l(u),u.last_task&&c(f=>f||u.last_task)},r);P(()=>{l(null),c(null),r(null),G(!1),ae(),C("GET",B("/tasks?limit=20")).then(u=>m(u.items),()=>{})},[a,i]),P(()=>I((u,f)=>{u==="machine.updated"&&f.id===a&&l(k=>k&&{...k,...f}),u==="task.updated"&&f.target_id===a&&(m(k=>k.some(M=>M.id===f.id)?k.map(M=>M.id===f.id?f:M):[f,...k]),(f.status==="succeeded"||f.status==="failed")&&(h(k=>k+1),ae()))}),[a]);let oe=async(u,f,k)=>{let M=await C(u,B(f),k);return c(M.task),m(Y=>Y.some(ze=>ze.id===M.task.id)?Y:[M.task,...Y]),M.task},Oe=async u=>{r(null);try{await oe("POST",`/actions/${u}`)}catch(f){r(f)}},D={m:o,at:B,act:oe,ended:s};return e`<main id="main">
    <p><a href=${t?"/admin/machines":"/machines"}>← Machines</a></p>
    <${y} error=${p} />
    ${o&&e`<h1>${o.name} <${O} value=${o.status} />${o.rescue?e` <span class="badge s-suspended">rescue</span>`:""}</h1>
      <nav class="parts" aria-label="On this page"><ul>${Ie.map(([u,f])=>e`<li><a href=${`#${u}`}>${f}</a></li>`)}</ul></nav>
      <div class="actions" role="group" aria-label="Power">
        ${Be.map(([u,f,k])=>e`<button onClick=${()=>Oe(u)} data-action=${u}><${k} />${f}</button>`)}
      </div>
      ${n&&e`<p>Last action: <${F} task=${n} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${o.cpu_cores} CPU, ${R(o.memory_mb)} memory, ${x(o.disk_gb)} disk</dd>
        <dt>Template</dt><dd>${o.template_id}</dd>
        <dt>Node</dt><dd>${o.node}</dd>
        <dt>Addresses</dt><dd>${(o.interfaces||[]).flatMap(u=>u.ip_addresses||[]).join(", ")||(o.addresses||[]).map(u=>u.address).join(", ")||"none"}</dd>
        <dt>ISO</dt><dd>${o.media?o.media.name:"none"}</dd>
        <dt>Created</dt><dd>${E(o.created_at)}</dd>
      </dl>
      <div id="graphs"><${S} id="graphs-part" title="Graphs"><${De} url=${`${t?te:L}/usage-graphs`} /><//></div>
      <div id="console"><${S} id="console-part" title="Serial console">
        ${g?e`<${Ne} url=${`${t?te:L}/console`} /><button type="button" onClick=${()=>G(!1)}>Close console</button>`:e`<button type="button" onClick=${()=>G(!0)}>Open console</button>`}
      <//></div>
      <div id="backups"><${Ce} ...${D} /></div>
      <div id="snapshots"><${Pe} ...${D} /></div>
      <div id="media"><${me} ...${D} /></div>
      <div id="reinstall"><${ue} ...${D} /></div>
      <div id="resize"><${pe} ...${D} /></div>
      <div id="tasks"><${S} id="tasks-part" title="Tasks">
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${d.map(u=>N.value[u.id]||u).map(u=>e`<tr key=${u.id}><td>${u.type}</td><td><${O} value=${u.status} /></td><td>${E(u.created_at)}</td><td>${u.error||""}</td></tr>`)}</tbody>
      </table></div><//></div>`}
  </main>`}function Te(){let[a,t]=$(null),[i,o]=$(null),[l,d]=$([""]),m=l[l.length-1];P(()=>{let n=!0;return C("GET",`${q}?limit=50${m?`&cursor=${encodeURIComponent(m)}`:""}`).then(c=>n&&t(c),c=>n&&o(c)),()=>{n=!1}},[m]),P(()=>I((n,c)=>{n!=="machine.updated"&&n!=="machine.deleted"||t(s=>{if(!s)return s;let h=s.items.findIndex(g=>g.id===c.id);return n==="machine.deleted"?h<0?s:{...s,items:s.items.filter(g=>g.id!==c.id)}:h>=0?{...s,items:s.items.map(g=>g.id===c.id?{...g,...c}:g)}:l.length===1?{...s,items:[c,...s.items]}:s})}),[l.length]);let p=n=>t(c=>c&&!c.items.some(s=>s.id===n.machine.id)?{...c,items:[{...n.machine,task_id:n.task.id},...c.items]}:c),r={};for(let n of Object.values(N.value)){let c=r[n.target_id];(!c||c.created_at<n.created_at)&&(r[n.target_id]=n)}return e`<main id="main">
    <h1>Machines</h1>
    <${y} error=${i} />
    <${qe} onCreated=${p} />
    ${a&&e`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${a.items.map(n=>e`<tr key=${n.id} data-machine=${n.id}>
        <td><a href=${`/machines/${encodeURIComponent(n.id)}`}>${n.name}</a></td>
        <td><${O} value=${n.status} /></td>
        <td>${n.cpu_cores} CPU, ${R(n.memory_mb)}, ${x(n.disk_gb)}</td>
        <td>${r[n.id]?e`<${F} task=${r[n.id]} />`:n.task_id?e`<${F} task=${{id:n.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${a.items.length===0&&e`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${l.length===1} onClick=${()=>d(l.slice(0,-1))}>Previous</button>
      <button disabled=${!a.next_cursor} onClick=${()=>d([...l,a.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function qe({onCreated:a}){let[t,i]=$(null),o=z(U),[l,d]=$(!1),m=async p=>{p.preventDefault();let r=new FormData(p.target),n={name:r.get("name"),template_id:r.get("template_id")};r.get("plan_id")&&(n.plan_id=r.get("plan_id"));for(let c of["cpu_cores","memory_mb","disk_gb"])r.get(c)&&(n[c]=Number(r.get(c)));i(null);try{a(await C("POST",q,n)),p.target.reset(),d(!1)}catch(c){i(c)}};return l?e`<form class="card" onSubmit=${m} aria-label="New machine">
    <${y} error=${t} />
    <div class="grid">
      <${b} name="name" label="Name" error=${t} required />
      <${Q} templates=${o} error=${t} />
      <${b} name="plan_id" label="Plan (optional)" error=${t} />
      <${b} name="cpu_cores" label="CPU cores" error=${t} type="number" min="1" />
      <${b} name="memory_mb" label="Memory (MB)" error=${t} type="number" min="1" />
      <${b} name="disk_gb" label="Disk (GB)" error=${t} type="number" min="1" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>d(!1)}>Cancel</button>
  </form>`:e`<button class="primary" onClick=${()=>d(!0)}>New machine</button>`}var Fe=w(()=>import("./account-5UIILA3Y.js"),"Account"),Ge=w(()=>import("./firewall-OOQ3JL2L.js"),"Firewall"),Le=w(()=>import("./schedules-MGYH52LR.js"),"Schedules"),Ye=w(()=>import("./tenants-LBWKVP6F.js"),"Tenants"),Ae=w(()=>import("./tenants-LBWKVP6F.js"),"Tenant"),Ve=w(()=>import("./plans-6HYVFOQE.js"),"Plans"),Re=A(null),je=null;function He(){return je||=import("./admin-ZKUTGPUJ.js").then(a=>{Re.value=a}),Re.value}var xe=A(!1);se().catch(()=>{}).finally(()=>{xe.value=!0});var Ee=["/account","Account",ge],We=[["/machines","Machines",X],["/firewall","Firewall",ke],["/schedules","Schedules",ve],Ee],Je=[["/admin/dashboard","Dashboard",ye],["/admin/machines","Machines",X],["/admin/nodes","Nodes",$e],["/admin/tenants","Tenants",_e],["/admin/plans","Plans",Se],Ee];function Ke({admin:a}){let t=H.value,i;if(_("/account",t))return e`<${Fe} />`;if(a){let o=He();return o?(i=_("/admin/machines/:id",t))?e`<${ee} id=${i.id} admin tenant=${new URLSearchParams(t.split("?")[1]||"").get("tenant")||""} />`:_("/admin/nodes",t)?e`<${o.Nodes} />`:(i=_("/admin/tenants/:id",t))?e`<${Ae} id=${i.id} />`:_("/admin/tenants",t)?e`<${Ye} />`:_("/admin/plans",t)?e`<${Ve} />`:_("/admin/machines",t)?e`<${o.AdminMachines} />`:e`<${o.Dashboard} />`:e`<main id="main"><p>Loading…</p></main>`}return(i=_("/machines/:id",t))?e`<${ee} id=${i.id} />`:_("/firewall",t)?e`<${Ge} />`:_("/schedules",t)?e`<${Le} />`:e`<${Te} />`}function Qe(){let a=V.value,t=a.user?.role==="admin",i=t?Je:We,o=H.value.split("?")[0],l=i[0][0];return(o==="/"||o==="/login"||o!=="/account"&&t!==o.startsWith("/admin"))&&queueMicrotask(()=>W(l,!0)),e`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${l}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${i.map(([d,m,p])=>e`<li><a href=${d} aria-current=${o.startsWith(d)?"page":void 0}><${p} />${m}</a></li>`)}
      </ul></nav>
      <span class="who">${a.user?.email}</span>
      <button class="quiet" onClick=${()=>re().then(()=>W("/login",!0))}><${be} />Sign out</button>
    </header>
    <${Ke} admin=${t} />`}function Xe(){return xe.value?V.value?e`<${Qe} />`:e`<${de} />`:e`<main id="main"><p>Loading…</p></main>`}ne(e`<${Xe} />`,document.getElementById("app"));
