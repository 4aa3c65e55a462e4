import{a as Y,c as G,d as Q}from"./chunk-MTL65ZAK.js";import{a as U,e as V}from"./chunk-PBPSO6V7.js";import{a as L}from"./chunk-HOYY2OMK.js";import{a as b,b as J,l as M,p as z,r as A,s as I}from"./chunk-E4PU34WH.js";import{g as d}from"./chunk-XGWGEZEQ.js";var ee={second:[0,59],minute:[0,59],hour:[0,23],dom:[1,31],month:[1,12],dow:[0,6]},ce=["jan","feb","mar","apr","may","jun","jul","aug","sep","oct","nov","dec"],te=["sun","mon","tue","wed","thu","fri","sat"],B=["Sunday","Monday","Tuesday","Wednesday","Thursday","Friday","Saturday"],ue=["January","February","March","April","May","June","July","August","September","October","November","December"],X={"@yearly":"0 0 0 1 1 *","@annually":"0 0 0 1 1 *","@monthly":"0 0 0 1 * *","@weekly":"0 0 0 * * 0","@daily":"0 0 0 * * *","@midnight":"0 0 0 * * *","@hourly":"0 0 * * * *"};function q(e,a){let s=a==="month"?ce:a==="dow"?te:null,n=s?s.indexOf(e.toLowerCase()):-1;if(n>=0)return a==="month"?n+1:n;if(!/^\d+$/.test(e))throw new Error(`${a}: ${e} is not a number`);return Number(e)}function me(e,a){let[s,n]=ee[a],i=new Set,l=!1;for(let $ of e.split(",")){let[h,o]=$.split("/"),m=o===void 0?1:q(o,a);if(o!==void 0&&(!/^\d+$/.test(o)||m<1))throw new Error(`${a}: step ${o}`);let t,u;if(h==="*"||h==="?")[t,u]=[s,n],m===1&&(l=!0);else{let[f,v]=h.split("-");t=q(f,a),u=v===void 0?o===void 0?t:n:q(v,a)}if(t<s||u>n||t>u)throw new Error(`${a}: ${h} is outside ${s}-${n}`);for(let f=t;f<=u;f+=m)i.add(f)}return{set:i,star:l}}function pe(e){let a={h:36e5,m:6e4,s:1e3,ms:1},s=0,n=e,i=/^(\d+(?:\.\d+)?)(h|ms|m|s)/;if(!n)throw new Error("no duration");for(;n;){let l=i.exec(n);if(!l)throw new Error(`${e} is not a duration`);s+=Number(l[1])*a[l[2]],n=n.slice(l[0].length)}return Math.max(1e3,Math.ceil(s/1e3)*1e3)}function O(e){let a=e.trim();if(a.startsWith("@every "))return{every:pe(a.slice(7).trim())};if(a.startsWith("@")){if(!X[a])throw new Error(`unknown descriptor ${a}`);a=X[a]}let s=a.split(/\s+/);if(s.length===5&&s.unshift("0"),s.length!==6)throw new Error("wants five fields: minute hour day-of-month month day-of-week");let[n,i,l,$,h,o]=s.map((m,t)=>me(m,Object.keys(ee)[t]));return{second:n,minute:i,hour:l,dom:$,month:h,dow:o}}function he(e){let a=new Intl.DateTimeFormat("en-US",{timeZone:e,hourCycle:"h23",year:"numeric",month:"numeric",day:"numeric",hour:"numeric",minute:"numeric",weekday:"short"});return s=>{let n={};for(let{type:i,value:l}of a.formatToParts(new Date(s)))n[i]=l;return{month:+n.month,dom:+n.day,hour:+n.hour%24,minute:+n.minute,dow:te.indexOf(n.weekday.toLowerCase().slice(0,3))}}}var x=6e4;function H(e,a,s,n=5){let i=[];if(e.every){let t=Math.floor(s.getTime()/1e3)*1e3;for(let u=1;u<=n;u++)i.push(new Date(t+u*e.every));return i}let l=he(a),$=t=>e.dom.star||e.dow.star?e.dom.set.has(t.dom)&&e.dow.set.has(t.dow):e.dom.set.has(t.dom)||e.dow.set.has(t.dow),h=[...e.second.set].sort((t,u)=>t-u),o=Math.floor(s.getTime()/x)*x,m=o+5*366*24*60*x;for(;o<m&&i.length<n;){let t=l(o);if(!e.month.set.has(t.month)||!$(t)){o+=(1440-t.hour*60-t.minute)*x;let u=l(o);u.dom!==t.dom&&(u.hour||u.minute)&&(o-=(u.hour*60+u.minute)*x);continue}if(!e.hour.set.has(t.hour)){o+=(60-t.minute)*x;continue}if(e.minute.set.has(t.minute))for(let u of h){let f=o+u*1e3;f>s.getTime()&&i.length<n&&i.push(new Date(f))}o+=x}return i}var E=e=>e.length<2?e.join(""):`${e.slice(0,-1).join(", ")} and ${e[e.length-1]}`,F=e=>String(e).padStart(2,"0"),N=e=>[...e.set].sort((a,s)=>a-s);function j(e){if(e.every){let o=e.every/1e3;return`every ${o%3600===0?`${o/3600} hour(s)`:o%60===0?`${o/60} minute(s)`:`${o} second(s)`}`}let a=N(e.minute),s=N(e.hour),n=N(e.second),i;a.length===1&&s.length===1?i=`at ${F(s[0])}:${F(a[0])}`:a.length===1&&e.hour.star?i=`every hour at minute ${a[0]}`:e.minute.star&&e.hour.star?i="every minute":s.length*a.length<=6?i=`at ${E(s.flatMap(o=>a.map(m=>`${F(o)}:${F(m)}`)))}`:i=`at minute ${e.minute.star?"every":E(a)} of ${e.hour.star?"every hour":`hour ${E(s)}`}`,(n.length!==1||n[0]!==0)&&(i=`${i}, second ${e.second.star?"every":E(n)}`);let l=[],$=N(e.dow);e.dom.star||l.push(`on day ${E(N(e.dom))} of the month`),e.dow.star||l.push(`on ${E($.map(o=>B[o]))}`);let h=`${i}${l.length?` ${l.join(" or ")}`:i.startsWith("every")?"":" every day"}`;return e.month.star||(h+=` in ${E(N(e.month).map(o=>ue[o-1]))}`),h}var D={power:"/api/resources/power-schedules",backup:"/api/resources/backup-schedules"},$e="/api/client/machines?limit=100";async function ne(e){let a=[],s="";do{let n=await M("GET",`${e}?limit=100${s?`&cursor=${encodeURIComponent(s)}`:""}`);a.push(...n.items),s=n.next_cursor||""}while(s);return a}function oe(e){try{return j(O(e))}catch{return e}}function Ce(){let[e,a]=b(null),[s,n]=b(null),[i,l]=b(null),$=U($e),h=Object.fromEntries(($?.items||[]).map(t=>[t.id,t.name])),o=()=>Promise.all([ne(D.power),ne(D.backup)]).then(([t,u])=>a([...t.map(f=>({...f,kind:"power"})),...u.map(f=>({...f,kind:"backup"}))]),n);J(()=>{o()},[]);let m=t=>M("DELETE",`${D[t.kind]}/${encodeURIComponent(t.id)}`).then(o,n);return d`<main id="main">
    <h1>Schedules</h1>
    <${A} error=${s} />
    <${be} machines=${$?.items||[]} onAdded=${o} />
    ${e&&d`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Power and backup schedules</caption>
      <thead><tr><th scope="col">Machine</th><th scope="col">Does</th><th scope="col">When</th><th scope="col">Next run</th>
        <th scope="col">Last run</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${e.map(t=>d`<tr key=${t.id} data-schedule=${t.id} data-kind=${t.kind}>
        <td>${h[t.machine_id]||t.machine_id}</td>
        <td>${t.kind==="power"?t.action:`back up (${t.mode}), keep ${t.retention}`}</td>
        <td><code>${t.cron}</code> <span data-words>${oe(t.cron)}</span> (${t.timezone})${t.enabled?"":", off"}</td>
        <td>${z(t.next_run_at)}</td>
        <td>${t.last_run_at?`${z(t.last_run_at)}: ${t.last_status||""}`:"never"}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${i===t.id}
          onClick=${()=>l(i===t.id?null:t.id)}>Edit</button>
          <${L} name="delete" label="Delete" question="Delete this schedule?" yes="Delete" onYes=${()=>m(t)} /></td>
      </tr>${i===t.id&&d`<tr key=${`${t.id}-edit`} class="edit-row"><td colspan="6">
        <${ae} s=${t} onCancel=${()=>l(null)} onSaved=${()=>{l(null),o()}} />
      </td></tr>`}`)}</tbody>
    </table></div>
    ${e.length===0&&d`<p>No schedules yet.</p>`}`}
  </main>`}function ae({s:e,onSaved:a,onCancel:s}){let[n,i]=b(null),[l,$]=b(e.cron),h=Q(),[o,m]=b(e.timezone),t="",u=[];try{let p=O(l);t=`Runs ${j(p)} (${o}).`,u=H(p,o,new Date)}catch(p){t=`This page cannot read the expression: ${p.message}.`}let f=re(o),v=async p=>{p.preventDefault();let r=new FormData(p.target),y={cron:l.trim(),timezone:r.get("timezone").trim(),enabled:r.get("enabled")==="on"};e.kind==="power"?y.action=r.get("action"):(y.mode=r.get("mode"),y.retention=Number(r.get("retention")));let w=Object.fromEntries(Object.entries(y).filter(([k,C])=>C!==e[k]));if(i(null),Object.keys(w).length===0){s();return}try{await M("PATCH",`${D[e.kind]}/${encodeURIComponent(e.id)}`,w),a()}catch(k){i(k)}},_=(p,r,y,w)=>d`<label class="field"><span>${r}</span><select name=${p} value=${w}
    aria-invalid=${n?.fields?.[p]?"true":void 0}>${y.map(k=>d`<option value=${k}>${k}</option>`)}</select>
    ${n?.fields?.[p]&&d`<span class="field-error">${n.fields[p]}</span>`}</label>`;return d`<form onSubmit=${v} aria-label="Edit schedule" onKeyDown=${p=>p.key==="Escape"&&s()}>
    <${A} error=${n} />
    <div class="grid">
      <${I} name="cron" label="Cron expression" error=${n} value=${l} inputRef=${h} spellcheck="false"
        onInput=${p=>$(p.target.value)} aria-describedby=${`words-${e.id}`} />
      <${I} name="timezone" label="Time zone" error=${n} value=${o} onInput=${p=>m(p.target.value.trim())} />
      ${e.kind==="power"?_("action","Action",["start","stop","shutdown","reboot"],e.action):d`${_("mode","Mode",["snapshot","suspend","stop"],e.mode)}
          <${I} name="retention" label="Backups kept (1–100)" error=${n} type="number" min="1" max="100" defaultValue=${e.retention} />`}
      <label class="check"><input type="checkbox" name="enabled" defaultChecked=${e.enabled} /> On</label>
    </div>
    <p id=${`words-${e.id}`} aria-live="polite" data-edit-words>${t}</p>
    <${se} runs=${u} fmt=${f} read=${!t.startsWith("This page")} />
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${s}>Cancel</button>
  </form>`}function re(e){try{return new Intl.DateTimeFormat(void 0,{timeZone:e,dateStyle:"full",timeStyle:"short"})}catch{return null}}var se=({runs:e,fmt:a,read:s})=>d`${s&&e.length===0&&d`<p>It does not run in the next five years.</p>`}
  ${e.length>0&&a&&d`<p>The next runs:</p><ol class="runs" data-next-runs>${e.map(n=>d`<li>${a.format(n)}</li>`)}</ol>`}`;function fe(e,a,s,n){let[i,l]=(s||"00:00").split(":").map(Number);return e==="hourly"?`${Number(a)||0} * * * *`:e==="daily"?`${l} ${i} * * *`:`${l} ${i} * * ${n}`}function be({machines:e,onAdded:a}){let[s,n]=b(!1),[i,l]=b(null),[$,h]=b("power"),[o,m]=b("daily"),[t,u]=b("0"),[f,v]=b("03:00"),[_,p]=b("1"),[r,y]=b(""),[w,k]=b("UTC"),C=o==="custom"?r:fe(o,t,f,_),R,K=[],Z="";try{let c=O(C);R=j(c),K=H(c,w,new Date)}catch(c){Z=c.message}let ie=re(w),le=async c=>{c.preventDefault();let g=new FormData(c.target),T={machine_id:g.get("machine_id"),cron:C,timezone:w};$==="power"?T.action=g.get("action"):(T.retention=Number(g.get("retention")),T.mode=g.get("mode")),l(null);try{await M("POST",D[$],T),n(!1),a()}catch(W){l(W)}},S=(c,g,T,W,de)=>d`<label class="choice"><input type="radio" name=${c} value=${g}
    checked=${W===g} onChange=${()=>de(g)} /> ${T}</label>`,P=i?.fields?.cron;return s?d`<form class="card" onSubmit=${le} aria-label="New schedule">
    <${A} error=${i} />
    <fieldset><legend>Kind</legend>
      ${S("kind","power","Power",$,h)} ${S("kind","backup","Backup",$,h)}
    </fieldset>
    <div class="grid">
      <label class="field"><span>Machine</span><select name="machine_id" required
        aria-invalid=${i?.fields?.machine_id?"true":void 0}>
        ${e.map(c=>d`<option value=${c.id}>${c.name}</option>`)}</select>
        ${i?.fields?.machine_id&&d`<span class="field-error">${i.fields.machine_id}</span>`}</label>
      ${$==="power"?d`<label class="field"><span>Action</span><select name="action">
            ${["start","stop","shutdown","reboot"].map(c=>d`<option value=${c}>${c}</option>`)}</select></label>`:d`<${I} name="retention" label="Backups kept (1–100)" error=${i} type="number" min="1" max="100" defaultValue="7" />
            <label class="field"><span>Mode</span><select name="mode">
              ${["snapshot","suspend","stop"].map(c=>d`<option value=${c}>${c}</option>`)}</select></label>`}
    </div>
    <fieldset><legend>When</legend>
      ${S("preset","hourly","Hourly",o,m)} ${S("preset","daily","Daily",o,m)}
      ${S("preset","weekly","Weekly",o,m)} ${S("preset","custom","Cron expression",o,c=>{y(C),m(c)})}
      <div class="grid">
        ${o==="hourly"&&d`<label class="field"><span>At minute</span><input type="number" min="0" max="59" value=${t} onInput=${c=>u(c.target.value)} /></label>`}
        ${o==="weekly"&&d`<label class="field"><span>On</span><select value=${_} onChange=${c=>p(c.target.value)}>
          ${B.map((c,g)=>d`<option value=${g}>${c}</option>`)}</select></label>`}
        ${(o==="daily"||o==="weekly")&&d`<label class="field"><span>At (HH:MM)</span><input type="time" value=${f} onInput=${c=>v(c.target.value)} /></label>`}
        <label class="field"><span>Cron expression (minute hour day-of-month month day-of-week)</span>
          <input name="cron" value=${C} readonly=${o!=="custom"} spellcheck="false"
            onInput=${c=>{y(c.target.value),m("custom")}}
            aria-invalid=${P?"true":void 0} aria-describedby="cron-words" />
          ${P&&d`<span class="field-error" id="cron-error">${P}</span>`}</label>
        <label class="field"><span>Time zone</span>
          <input name="timezone" value=${w} onInput=${c=>k(c.target.value.trim())}
            aria-invalid=${i?.fields?.timezone?"true":void 0} />
          ${i?.fields?.timezone&&d`<span class="field-error">${i.fields.timezone}</span>`}</label>
      </div>
      <p id="cron-words" aria-live="polite" data-runs-at>${R?`Runs ${R} (${w}).`:`This page cannot read the expression: ${Z}.`}</p>
      <${se} runs=${K} fmt=${ie} read=${!!R} />
    </fieldset>
    <button type="submit" class="primary">Add schedule</button> <button type="button" onClick=${()=>n(!1)}>Cancel</button>
  </form>`:d`<button class="primary" onClick=${()=>n(!0)}>New schedule</button>`}function Se(){let[e,a]=b({kind:"power",tenant_id:"",machine_id:""}),s=new URLSearchParams({limit:"50"});e.tenant_id&&s.set("tenant_id",e.tenant_id),e.machine_id&&s.set("machine_id",e.machine_id);let{page:n,error:i,reload:l,pager:$}=Y(`${D[e.kind]}?${s}`),h=U(V),o=Object.fromEntries((h?.items||[]).map(r=>[r.id,r.name])),[m,t]=b(null),[u,f]=G(),v=r=>f(()=>M("DELETE",`${D[r.kind]}/${encodeURIComponent(r.id)}`)).then(l),_=r=>{r.preventDefault();let y=new FormData(r.target);t(null),a({kind:y.get("kind"),tenant_id:y.get("tenant_id"),machine_id:String(y.get("machine_id")).trim()})},p=(n?.items||[]).map(r=>({...r,kind:e.kind}));return d`<main id="main">
    <h1>Schedules</h1>
    <p class="muted">Every tenant's power and backup schedules. A tenant's users add theirs on their own schedules page.</p>
    <form class="filters" role="search" aria-label="Filter schedules" onSubmit=${_}>
      <label class="field"><span>Kind</span><select name="kind"><option value="power">power</option><option value="backup">backup</option></select></label>
      <label class="field"><span>Tenant</span><select name="tenant_id"><option value="">any</option>
        ${(h?.items||[]).map(r=>d`<option value=${r.id}>${r.name}</option>`)}</select></label>
      <${I} name="machine_id" label="Machine id" error=${i} />
      <button type="submit">Filter</button>
    </form>
    <${A} error=${i||u} />
    ${n&&d`<div class="table-wrap" tabindex="0"><table data-schedules=${e.kind}>
      <caption class="sr-only">${e.kind==="power"?"Power":"Backup"} schedules</caption>
      <thead><tr><th scope="col">Tenant</th><th scope="col">Machine</th><th scope="col">Does</th><th scope="col">When</th><th scope="col">Next run</th>
        <th scope="col">Last run</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${p.map(r=>d`<tr key=${r.id} data-schedule=${r.id} data-kind=${r.kind}>
        <td>${o[r.tenant_id]||r.tenant_id}</td>
        <td><a href=${`/admin/machines/${encodeURIComponent(r.machine_id)}?tenant=${encodeURIComponent(r.tenant_id)}`}>${r.machine_id}</a></td>
        <td>${r.kind==="power"?r.action:`back up (${r.mode}), keep ${r.retention}`}</td>
        <td><code>${r.cron}</code> <span data-words>${oe(r.cron)}</span> (${r.timezone})<span data-state>${r.enabled?"":", off"}</span></td>
        <td>${z(r.next_run_at)}</td>
        <td>${r.last_run_at?`${z(r.last_run_at)}: ${r.last_status||""}`:"never"}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${m===r.id?"true":"false"}
          onClick=${()=>t(m===r.id?null:r.id)}>Edit</button>
          <${L} name="delete" label="Delete" question="Delete this schedule?" yes="Delete" onYes=${()=>v(r)} /></td>
      </tr>${m===r.id&&d`<tr key=${`${r.id}-edit`} class="edit-row"><td colspan="7">
        <${ae} s=${r} onCancel=${()=>t(null)} onSaved=${()=>{t(null),l()}} />
      </td></tr>`}`)}</tbody>
    </table></div>
    ${p.length===0&&d`<p>No ${e.kind} schedules${e.tenant_id||e.machine_id?" match":""}.</p>`}
    ${$}`}
  </main>`}export{Se as AdminSchedules,ae as EditSchedule,Ce as Schedules,oe as inWords,D as kinds};
