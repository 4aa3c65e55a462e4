import{a as I,b as n,c as $,d as _,e as M,f as P,g as x,h as O,i as B,j as v,k as E,l as N,m as T,n as w,o as y,p as f,q as L,r as q}from"./chunk-I57ED7QZ.js";var S=M(location.pathname+location.search);function C(e,t=!1){history[t?"replaceState":"pushState"](null,"",e),S.value=e,window.scrollTo(0,0)}addEventListener("popstate",()=>{S.value=location.pathname+location.search});addEventListener("click",e=>{let t=e.target.closest?.("a[href]");!t||t.origin!==location.origin||t.target||e.defaultPrevented||e.button!==0||e.metaKey||e.ctrlKey||e.shiftKey||e.altKey||t.pathname.startsWith("/api/")||(e.preventDefault(),C(t.pathname+t.search))});function R(e,t){let r=e.split("/"),l=t.split("?")[0].split("/");if(r.length!==l.length)return null;let i={};for(let c=0;c<r.length;c++)if(r[c].startsWith(":"))i[r[c].slice(1)]=decodeURIComponent(l[c]);else if(r[c]!==l[c])return null;return i}function F(){let[e,t]=$(null),[r,l]=$(null),[i,c]=$(!1);return n`<main id="main" class="login">
    <form onSubmit=${async m=>{m.preventDefault();let u=new FormData(m.target);c(!0),t(null);try{r?await x("login/totp",{challenge:r,code:u.get("code")}):await x("login",{email:u.get("email"),password:u.get("password")})}catch(a){a.code==="totp_required"&&a.challenge?l(a.challenge):t(a)}finally{c(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${y} error=${e} />
      ${r?n`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${f} name="code" label="Code" error=${e} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:n`<${f} name="email" label="E-mail" error=${e} type="email" autocomplete="username" required autofocus />
          <${f} name="password" label="Password" error=${e} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${i}>${r?"Verify":"Sign in"}</button>
    </form>
  </main>`}var k=e=>()=>n`<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d=${e} /></svg>`,U=k("M4 4h16v6H4zM4 14h16v6H4zM7 7h.01M7 17h.01"),G=k("M12 3v6M5 21v-6h14v6M12 9a3 3 0 1 0 0 .01M12 12v3"),K=k("M7 4l13 8-13 8z"),W=k("M6 6h12v12H6z"),A=k("M20 12a8 8 0 1 1-3-6.2M20 4v5h-5"),H=k("M15 4h4v16h-4M10 8l-4 4 4 4M6 12h10");var D="/api/client/machines";function z({task:e}){if(!e)return null;let t=L.value[e.id]||e;return n`<span class="task" aria-live="polite">${t.type}: <${w} value=${t.status} />${t.error?n` <span class="field-error">${t.error}</span>`:""}</span>`}function j(){let[e,t]=$(null),[r,l]=$(null),[i,c]=$([""]),h=i[i.length-1];_(()=>{let a=!0;return v("GET",`${D}?limit=50${h?`&cursor=${encodeURIComponent(h)}`:""}`).then(d=>a&&t(d),d=>a&&l(d)),()=>{a=!1}},[h]),_(()=>q((a,d)=>{a!=="machine.updated"&&a!=="machine.deleted"||t(p=>{if(!p)return p;let o=p.items.findIndex(s=>s.id===d.id);return a==="machine.deleted"?o<0?p:{...p,items:p.items.filter(s=>s.id!==d.id)}:o>=0?{...p,items:p.items.map(s=>s.id===d.id?{...s,...d}:s)}:i.length===1?{...p,items:[d,...p.items]}:p})}),[i.length]);let m=a=>t(d=>d&&!d.items.some(p=>p.id===a.machine.id)?{...d,items:[{...a.machine,task_id:a.task.id},...d.items]}:d),u={};for(let a of Object.values(L.value)){let d=u[a.target_id];(!d||d.created_at<a.created_at)&&(u[a.target_id]=a)}return n`<main id="main">
    <h1>Machines</h1>
    <${y} error=${r} />
    <${X} onCreated=${m} />
    ${e&&n`<div class="table-wrap"><table>
      <caption class="sr-only">Your machines</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Size</th><th scope="col">Task</th></tr></thead>
      <tbody>${e.items.map(a=>n`<tr key=${a.id} data-machine=${a.id}>
        <td><a href=${`/machines/${encodeURIComponent(a.id)}`}>${a.name}</a></td>
        <td><${w} value=${a.status} /></td>
        <td>${a.cpu_cores} CPU, ${E(a.memory_mb)}, ${N(a.disk_gb)}</td>
        <td>${u[a.id]?n`<${z} task=${u[a.id]} />`:a.task_id?n`<${z} task=${{id:a.task_id,type:"task",status:"running"}} />`:""}</td>
      </tr>`)}</tbody>
    </table></div>
    ${e.items.length===0&&n`<p>No machines yet.</p>`}
    <nav class="pager" aria-label="Pages">
      <button disabled=${i.length===1} onClick=${()=>c(i.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>c([...i,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}function X({onCreated:e}){let[t,r]=$(null),[l,i]=$(!1),c=async h=>{h.preventDefault();let m=new FormData(h.target),u={name:m.get("name"),template_id:m.get("template_id")};m.get("plan_id")&&(u.plan_id=m.get("plan_id"));for(let a of["cpu_cores","memory_mb","disk_gb"])m.get(a)&&(u[a]=Number(m.get(a)));r(null);try{e(await v("POST",D,u)),h.target.reset(),i(!1)}catch(a){r(a)}};return l?n`<form class="card" onSubmit=${c} aria-label="New machine">
    <${y} error=${t} />
    <div class="grid">
      <${f} name="name" label="Name" error=${t} required />
      <${f} name="template_id" label="Template" error=${t} required />
      <${f} name="plan_id" label="Plan (optional)" error=${t} />
      <${f} name="cpu_cores" label="CPU cores" error=${t} type="number" min="1" />
      <${f} name="memory_mb" label="Memory (MB)" error=${t} type="number" min="1" />
      <${f} name="disk_gb" label="Disk (GB)" error=${t} type="number" min="1" />
    </div>
    <button type="submit" class="primary">Create</button> <button type="button" onClick=${()=>i(!1)}>Cancel</button>
  </form>`:n`<button class="primary" onClick=${()=>i(!0)}>New machine</button>`}var Z=[["start","Start",K],["stop","Stop",W],["reboot","Reboot",A]];function Y({id:e}){let[t,r]=$(null),[l,i]=$([]),[c,h]=$(null),[m,u]=$(null),a=`${D}/${encodeURIComponent(e)}`,d=()=>v("GET",`${a}/tasks?limit=20`).then(o=>i(o.items),()=>{});_(()=>{v("GET",a).then(o=>{r(o),o.last_task&&u(o.last_task)},h),d()},[e]),_(()=>q((o,s)=>{o==="machine.updated"&&s.id===e&&r(b=>({...b,...s})),o==="task.updated"&&s.target_id===e&&i(b=>b.some(g=>g.id===s.id)?b.map(g=>g.id===s.id?s:g):[s,...b])}),[e]);let p=async o=>{h(null);try{let s=await v("POST",`${a}/actions/${o}`);u(s.task),i(b=>[s.task,...b.filter(g=>g.id!==s.task.id)])}catch(s){h(s)}};return n`<main id="main">
    <p><a href="/machines">← Machines</a></p>
    <${y} error=${c} />
    ${t&&n`<h1>${t.name} <${w} value=${t.status} /></h1>
      <div class="actions" role="group" aria-label="Power">
        ${Z.map(([o,s,b])=>n`<button onClick=${()=>p(o)} data-action=${o}><${b} />${s}</button>`)}
      </div>
      ${m&&n`<p>Last action: <${z} task=${m} /></p>`}
      <dl class="facts">
        <dt>Size</dt><dd>${t.cpu_cores} CPU, ${E(t.memory_mb)} memory, ${N(t.disk_gb)} disk</dd>
        <dt>Node</dt><dd>${t.node}</dd>
        <dt>Addresses</dt><dd>${(t.interfaces||[]).flatMap(o=>o.ip_addresses||[]).join(", ")||"none"}</dd>
        <dt>Created</dt><dd>${T(t.created_at)}</dd>
      </dl>
      <h2>Tasks</h2>
      <div class="table-wrap"><table>
        <thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Error</th></tr></thead>
        <tbody>${l.map(o=>n`<tr key=${o.id}><td>${o.type}</td><td><${w} value=${o.status} /></td><td>${T(o.created_at)}</td><td>${o.error||""}</td></tr>`)}</tbody>
      </table></div>`}
  </main>`}var J=M(null),tt=null;function et(){return tt||=import("./admin-5S7ORPZR.js").then(e=>{J.value=e}),J.value}var Q=M(!1);O().catch(()=>{}).finally(()=>{Q.value=!0});var at=[["/machines","Machines",U]],nt=[["/admin/machines","Machines",U],["/admin/nodes","Nodes",G]];function rt({admin:e}){let t=S.value,r;if(e){let l=et();return l?R("/admin/nodes",t)?n`<${l.Nodes} />`:n`<${l.AdminMachines} />`:n`<main id="main"><p>Loading…</p></main>`}return(r=R("/machines/:id",t))?n`<${Y} id=${r.id} />`:n`<${j} />`}function ot(){let e=P.value,t=e.user?.role==="admin",r=t?nt:at,l=S.value.split("?")[0],i=r[0][0];return(l==="/"||l==="/login"||t!==l.startsWith("/admin"))&&queueMicrotask(()=>C(i,!0)),n`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${i}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${r.map(([c,h,m])=>n`<li><a href=${c} aria-current=${l.startsWith(c)?"page":void 0}><${m} />${h}</a></li>`)}
      </ul></nav>
      <span class="who">${e.user?.email}</span>
      <button class="quiet" onClick=${()=>B().then(()=>C("/login",!0))}><${H} />Sign out</button>
    </header>
    <${rt} admin=${t} />`}function it(){return Q.value?P.value?n`<${ot} />`:n`<${F} />`:n`<main id="main"><p>Loading…</p></main>`}I(n`<${it} />`,document.getElementById("app"));
