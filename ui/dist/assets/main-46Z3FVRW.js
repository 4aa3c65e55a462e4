import{a as D,b as n,c as h,d as k,e as _,f as P,g as x,h as I,i as B,j as g,k as E,l as N,m as T,n as M,o as v,p as $,q as L,r as q}from"./chunk-I57ED7QZ.js";var w=_(location.pathname+location.search);function C(e,t=!1){history[t?"replaceState":"pushState"](null,"",e),w.value=e,window.scrollTo(0,0)}addEventListener("popstate",()=>{w.value=location.pathname+location.search});addEventListener("click",e=>{let t=e.target.closest?.("a[href]");!t||t.origin!==location.origin||t.target||e.defaultPrevented||e.button!==0||e.metaKey||e.ctrlKey||e.shiftKey||e.altKey||t.pathname.startsWith("/api/")||(e.preventDefault(),C(t.pathname+t.search))});function R(e,t){let i=e.split("/"),l=t.split("?")[0].split("/");if(i.length!==l.length)return null;let s={};for(let c=0;c<i.length;c++)if(i[c].startsWith(":"))s[i[c].slice(1)]=decodeURIComponent(l[c]);else if(i[c]!==l[c])return null;return s}function O(){let[e,t]=h(null),[i,l]=h(null),[s,c]=h(!1);return n`<main id="main" class="login">
    <form onSubmit=${async d=>{d.preventDefault();let a=new FormData(d.target);c(!0),t(null);try{i?await x("login/totp",{challenge:i,code:a.get("code")}):await x("login",{email:a.get("email"),password:a.get("password")})}catch(r){r.code==="totp_required"&&r.challenge?l(r.challenge):t(r)}finally{c(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${v} error=${e} />
      ${i?n`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${$} name="code" label="Code" error=${e} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:n`<${$} name="email" label="E-mail" error=${e} type="email" autocomplete="username" required autofocus />
          <${$} name="password" label="Password" error=${e} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${s}>${i?"Verify":"Sign in"}</button>
    </form>
  </main>`}var y=e=>()=>n`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${e} /></svg>`,U=y("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),F=y("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),G=y("M7 4l13 8-13 8z"),K=y("M6 6h12v12H6z"),W=y("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),A=y("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10");var z="/api/client/machines";function V({task:e}){if(!e)return null;let t=L.value[e.id]||e;return n`<span class="task" aria-live="polite">${t.type}: <${M} value=${t.status} />${t.error?n` <span class="field-error">${t.error}</span>`:""}</span>`}function j(){let[e,t]=h(null),[i,l]=h(null),[s,c]=h([""]),p=s[s.length-1];return k(()=>{let a=!0;return g("GET",`${z}?limit=50${p?`&cursor=${encodeURIComponent(p)}`:""}`).then(r=>a&&t(r),r=>a&&l(r)),()=>{a=!1}},[p]),k(()=>q((a,r)=>{a!=="machine.updated"&&a!=="machine.deleted"||t(m=>{if(!m)return m;let S=m.items.findIndex(o=>o.id===r.id);return a==="machine.deleted"?S<0?m:{...m,items:m.items.filter(o=>o.id!==r.id)}:S>=0?{...m,items:m.items.map(o=>o.id===r.id?{...o,...r}:o)}:s.length===1?{...m,items:[r,...m.items]}:m})}),[s.length]),n`<main id="main">
    <h1>Machines</h1>
    <${v} error=${i} />
    <${X} onCreated=${a=>t(r=>r&&!r.items.some(m=>m.id===a.machine.id)?{...r,items:[{...a.machine,task_id:a.task.id},...r.items]}:r)} />
    ${e&&n`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${e.items.map(a=>n`<tr key=${a.id} data-machine=${a.id}>
        <td><a href=${`/machines/${encodeURIComponent(a.id)}`}>${a.name}</a></td>
        <td><${M} value=${a.status} /></td>
        <td>${a.cpu_cores} CPU, ${E(a.memory_mb)}, ${N(a.disk_gb)}</td>
        <td>${a.task_id?n`<${V} task=${L.value[a.task_id]||{id:a.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&n`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${s.length===1} onClick=${()=>c(s.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>c([...s,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function X({onCreated:e}){let[t,i]=h(null),[l,s]=h(!1),c=async p=>{p.preventDefault();let d=new FormData(p.target),a={name:d.get("name"),template_id:d.get("template_id")};d.get("plan_id")&&(a.plan_id=d.get("plan_id"));for(let r of["cpu_cores","memory_mb","disk_gb"])d.get(r)&&(a[r]=Number(d.get(r)));i(null);try{e(await g("POST",z,a)),p.target.reset(),s(!1)}catch(r){i(r)}};return l?n`<form class="card" onSubmit=${c} aria-label="New machine">
    <${v} error=${t} />
    <div class="grid">
      <${$} name="name" label="Name" error=${t} required />
      <${$} name="template_id" label="Template" error=${t} required />
      <${$} name="plan_id" label="Plan (optional)" error=${t} />
      <${$} name="cpu_cores" label="CPU cores" error=${t} type="number" min="1" />
      <${$} name="memory_mb" label="Memory (MB)" error=${t} type="number" min="1" />
      <${$} name="disk_gb" label="Disk (GB)" error=${t} type="number" min="1" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>s(!1)}>Cancel</button>
  </form>`:n`<button class="primary" onClick=${()=>s(!0)}>New machine</button>`}var Z=[["start","Start",G],["stop","Stop",K],["reboot","Reboot",W]];function Y({id:e}){let[t,i]=h(null),[l,s]=h([]),[c,p]=h(null),[d,a]=h(null),r=`${z}/${encodeURIComponent(e)}`,m=()=>g("GET",`${r}/tasks?limit=20`).then(o=>s(o.items),()=>{});k(()=>{g("GET",r).then(o=>{i(o),o.last_task&&a(o.last_task)},p),m()},[e]),k(()=>q((o,u)=>{o==="machine.updated"&&u.id===e&&i(f=>({...f,...u})),o==="task.updated"&&u.target_id===e&&s(f=>f.some(b=>b.id===u.id)?f.map(b=>b.id===u.id?u:b):[u,...f])}),[e]);let S=async o=>{p(null);try{let u=await g("POST",`${r}/actions/${o}`);a(u.task),s(f=>[u.task,...f.filter(b=>b.id!==u.task.id)])}catch(u){p(u)}};return n`<main id="main">
    <p><a href="/machines">← Machines</a></p>
    <${v} error=${c} />
    ${t&&n`<h1>${t.name} <${M} value=${t.status} /></h1>
      <div class="actions" role="group" aria-label="Power">
        ${Z.map(([o,u,f])=>n`<button onClick=${()=>S(o)} data-action=${o}><${f} />${u}</button>`)}
      </div>
      ${d&&n`<p>Last action: <${V} task=${d} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${t.cpu_cores} CPU, ${E(t.memory_mb)} memory, ${N(t.disk_gb)} disk</dd>
        <dt>Node</dt><dd>${t.node}</dd>
        <dt>Addresses</dt><dd>${(t.interfaces||[]).flatMap(o=>o.ip_addresses||[]).join(", ")||"none"}</dd>
        <dt>Created</dt><dd>${T(t.created_at)}</dd>
      </dl>
      <h2>Tasks</h2>
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${l.map(o=>n`<tr key=${o.id}><td>${o.type}</td><td><${M} value=${o.status} /></td><td>${T(o.created_at)}</td><td>${o.error||""}</td></tr>`)}</tbody>
      </table></div>`}
  </main>`}var J=_(null),tt=null;function et(){return tt||=import("./admin-5S7ORPZR.js").then(e=>{J.value=e}),J.value}var Q=_(!1);I().catch(()=>{}).finally(()=>{Q.value=!0});var at=[["/machines","Machines",U]],nt=[["/admin/machines","Machines",U],["/admin/nodes","Nodes",F]];function rt({admin:e}){let t=w.value,i;if(e){let l=et();return l?R("/admin/nodes",t)?n`<${l.Nodes} />`:n`<${l.AdminMachines} />`:n`<main id="main"><p>Loading…</p></main>`}return(i=R("/machines/:id",t))?n`<${Y} id=${i.id} />`:n`<${j} />`}function ot(){let e=P.value,t=e.user?.role==="admin",i=t?nt:at,l=w.value.split("?")[0],s=i[0][0];return(l==="/"||l==="/login"||t!==l.startsWith("/admin"))&&queueMicrotask(()=>C(s,!0)),n`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${s}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${i.map(([c,p,d])=>n`<li><a href=${c} aria-current=${l.startsWith(c)?"page":void 0}><${d} />${p}</a></li>`)}
      </ul></nav>
      <span class="who">${e.user?.email}</span>
      <button class="quiet" onClick=${()=>B().then(()=>C("/login",!0))}><${A} />Sign out</button>
    </header>
    <${rt} admin=${t} />`}function it(){return Q.value?P.value?n`<${ot} />`:n`<${O} />`:n`<main id="main"><p>Loading…</p></main>`}D(n`<${it} />`,document.getElementById("app"));
