import{a as Z}from"./chunk-GJDTPUNE.js";import{a as K}from"./chunk-4N27BIS6.js";import{a as $,b as W,c as J,k as T,o as F,q as z,r as D}from"./chunk-GR3JKDU4.js";import{g as u}from"./chunk-XGWGEZEQ.js";var G={second:[0,59],minute:[0,59],hour:[0,23],dom:[1,31],month:[1,12],dow:[0,6]},oe=["jan","feb","mar","apr","may","jun","jul","aug","sep","oct","nov","dec"],Y=["sun","mon","tue","wed","thu","fri","sat"],U=["Sunday","Monday","Tuesday","Wednesday","Thursday","Friday","Saturday"],re=["January","February","March","April","May","June","July","August","September","October","November","December"],q={"@yearly":"0 0 0 1 1 *","@annually":"0 0 0 1 1 *","@monthly":"0 0 0 1 * *","@weekly":"0 0 0 * * 0","@daily":"0 0 0 * * *","@midnight":"0 0 0 * * *","@hourly":"0 0 * * * *"};function L(e,r){let s=r==="month"?oe:r==="dow"?Y:null,n=s?s.indexOf(e.toLowerCase()):-1;if(n>=0)return r==="month"?n+1:n;if(!/^\d+$/.test(e))throw new Error(`${r}: ${e} is not a number`);return Number(e)}function ae(e,r){let[s,n]=G[r],a=new Set,d=!1;for(let h of e.split(",")){let[m,o]=h.split("/"),p=o===void 0?1:L(o,r);if(o!==void 0&&(!/^\d+$/.test(o)||p<1))throw new Error(`${r}: step ${o}`);let t,i;if(m==="*"||m==="?")[t,i]=[s,n],p===1&&(d=!0);else{let[c,f]=m.split("-");t=L(c,r),i=f===void 0?o===void 0?t:n:L(f,r)}if(t<s||i>n||t>i)throw new Error(`${r}: ${m} is outside ${s}-${n}`);for(let c=t;c<=i;c+=p)a.add(c)}return{set:a,star:d}}function se(e){let r={h:36e5,m:6e4,s:1e3,ms:1},s=0,n=e,a=/^(\d+(?:\.\d+)?)(h|ms|m|s)/;if(!n)throw new Error("no duration");for(;n;){let d=a.exec(n);if(!d)throw new Error(`${e} is not a duration`);s+=Number(d[1])*r[d[2]],n=n.slice(d[0].length)}return Math.max(1e3,Math.ceil(s/1e3)*1e3)}function O(e){let r=e.trim();if(r.startsWith("@every "))return{every:se(r.slice(7).trim())};if(r.startsWith("@")){if(!q[r])throw new Error(`unknown descriptor ${r}`);r=q[r]}let s=r.split(/\s+/);if(s.length===5&&s.unshift("0"),s.length!==6)throw new Error("wants five fields: minute hour day-of-month month day-of-week");let[n,a,d,h,m,o]=s.map((p,t)=>ae(p,Object.keys(G)[t]));return{second:n,minute:a,hour:d,dom:h,month:m,dow:o}}function ie(e){let r=new Intl.DateTimeFormat("en-US",{timeZone:e,hourCycle:"h23",year:"numeric",month:"numeric",day:"numeric",hour:"numeric",minute:"numeric",weekday:"short"});return s=>{let n={};for(let{type:a,value:d}of r.formatToParts(new Date(s)))n[a]=d;return{month:+n.month,dom:+n.day,hour:+n.hour%24,minute:+n.minute,dow:Y.indexOf(n.weekday.toLowerCase().slice(0,3))}}}var g=6e4;function Q(e,r,s,n=5){let a=[];if(e.every){let t=Math.floor(s.getTime()/1e3)*1e3;for(let i=1;i<=n;i++)a.push(new Date(t+i*e.every));return a}let d=ie(r),h=t=>e.dom.star||e.dow.star?e.dom.set.has(t.dom)&&e.dow.set.has(t.dow):e.dom.set.has(t.dom)||e.dow.set.has(t.dow),m=[...e.second.set].sort((t,i)=>t-i),o=Math.floor(s.getTime()/g)*g,p=o+5*366*24*60*g;for(;o<p&&a.length<n;){let t=d(o);if(!e.month.set.has(t.month)||!h(t)){o+=(1440-t.hour*60-t.minute)*g;let i=d(o);i.dom!==t.dom&&(i.hour||i.minute)&&(o-=(i.hour*60+i.minute)*g);continue}if(!e.hour.set.has(t.hour)){o+=(60-t.minute)*g;continue}if(e.minute.set.has(t.minute))for(let i of m){let c=o+i*1e3;c>s.getTime()&&a.length<n&&a.push(new Date(c))}o+=g}return a}var v=e=>e.length<2?e.join(""):`${e.slice(0,-1).join(", ")} and ${e[e.length-1]}`,I=e=>String(e).padStart(2,"0"),E=e=>[...e.set].sort((r,s)=>r-s);function j(e){if(e.every){let o=e.every/1e3;return`every ${o%3600===0?`${o/3600} hour(s)`:o%60===0?`${o/60} minute(s)`:`${o} second(s)`}`}let r=E(e.minute),s=E(e.hour),n=E(e.second),a;r.length===1&&s.length===1?a=`at ${I(s[0])}:${I(r[0])}`:r.length===1&&e.hour.star?a=`every hour at minute ${r[0]}`:e.minute.star&&e.hour.star?a="every minute":s.length*r.length<=6?a=`at ${v(s.flatMap(o=>r.map(p=>`${I(o)}:${I(p)}`)))}`:a=`at minute ${e.minute.star?"every":v(r)} of ${e.hour.star?"every hour":`hour ${v(s)}`}`,(n.length!==1||n[0]!==0)&&(a=`${a}, second ${e.second.star?"every":v(n)}`);let d=[],h=E(e.dow);e.dom.star||d.push(`on day ${v(E(e.dom))} of the month`),e.dow.star||d.push(`on ${v(h.map(o=>U[o]))}`);let m=`${a}${d.length?` ${d.join(" or ")}`:a.startsWith("every")?"":" every day"}`;return e.month.star||(m+=` in ${v(E(e.month).map(o=>re[o-1]))}`),m}var S={power:"/api/resources/power-schedules",backup:"/api/resources/backup-schedules"},le="/api/client/machines?limit=100";async function X(e){let r=[],s="";do{let n=await T("GET",`${e}?limit=100${s?`&cursor=${encodeURIComponent(s)}`:""}`);r.push(...n.items),s=n.next_cursor||""}while(s);return r}function de(e){try{return j(O(e))}catch{return e}}function ve(){let[e,r]=$(null),[s,n]=$(null),[a,d]=$(null),h=Z(le),m=Object.fromEntries((h?.items||[]).map(t=>[t.id,t.name])),o=()=>Promise.all([X(S.power),X(S.backup)]).then(([t,i])=>r([...t.map(c=>({...c,kind:"power"})),...i.map(c=>({...c,kind:"backup"}))]),n);W(()=>{o()},[]);let p=t=>T("DELETE",`${S[t.kind]}/${encodeURIComponent(t.id)}`).then(o,n);return u`<main id="main">
    <h1>Schedules</h1>
    <${z} error=${s} />
    <${me} machines=${h?.items||[]} onAdded=${o} />
    ${e&&u`<div class="table-wrap" tabindex="0"><table>
      <caption class="sr-only">Power and backup schedules</caption>
      <thead><tr><th scope="col">Machine</th><th scope="col">Does</th><th scope="col">When</th><th scope="col">Next run</th>
        <th scope="col">Last run</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${e.map(t=>u`<tr key=${t.id} data-schedule=${t.id} data-kind=${t.kind}>
        <td>${m[t.machine_id]||t.machine_id}</td>
        <td>${t.kind==="power"?t.action:`back up (${t.mode}), keep ${t.retention}`}</td>
        <td><code>${t.cron}</code> <span data-words>${de(t.cron)}</span> (${t.timezone})${t.enabled?"":", off"}</td>
        <td>${F(t.next_run_at)}</td>
        <td>${t.last_run_at?`${F(t.last_run_at)}: ${t.last_status||""}`:"never"}</td>
        <td class="row-actions"><button type="button" data-edit aria-expanded=${a===t.id}
          onClick=${()=>d(a===t.id?null:t.id)}>Edit</button>
          <${K} name="delete" label="Delete" question="Delete this schedule?" yes="Delete" onYes=${()=>p(t)} /></td>
      </tr>${a===t.id&&u`<tr key=${`${t.id}-edit`} class="edit-row"><td colspan="6">
        <${ue} s=${t} onCancel=${()=>d(null)} onSaved=${()=>{d(null),o()}} />
      </td></tr>`}`)}</tbody>
    </table></div>
    ${e.length===0&&u`<p>No schedules yet.</p>`}`}
  </main>`}function ue({s:e,onSaved:r,onCancel:s}){let[n,a]=$(null),[d,h]=$(e.cron),m=J(null);W(()=>{m.current?.focus()},[]);let o="";try{o=`Runs ${j(O(d))}.`}catch(i){o=`This page cannot read the expression: ${i.message}.`}let p=async i=>{i.preventDefault();let c=new FormData(i.target),f={cron:d.trim(),timezone:c.get("timezone").trim(),enabled:c.get("enabled")==="on"};e.kind==="power"?f.action=c.get("action"):(f.mode=c.get("mode"),f.retention=Number(c.get("retention")));let w=Object.fromEntries(Object.entries(f).filter(([b,A])=>A!==e[b]));if(a(null),Object.keys(w).length===0){s();return}try{await T("PATCH",`${S[e.kind]}/${encodeURIComponent(e.id)}`,w),r()}catch(b){a(b)}},t=(i,c,f,w)=>u`<label class="field"><span>${c}</span><select name=${i} value=${w}
    aria-invalid=${n?.fields?.[i]?"true":void 0}>${f.map(b=>u`<option value=${b}>${b}</option>`)}</select>
    ${n?.fields?.[i]&&u`<span class="field-error">${n.fields[i]}</span>`}</label>`;return u`<form onSubmit=${p} aria-label="Edit schedule" onKeyDown=${i=>i.key==="Escape"&&s()}>
    <${z} error=${n} />
    <div class="grid">
      <${D} name="cron" label="Cron expression" error=${n} value=${d} inputRef=${m} spellcheck="false"
        onInput=${i=>h(i.target.value)} aria-describedby=${`words-${e.id}`} />
      <${D} name="timezone" label="Time zone" error=${n} defaultValue=${e.timezone} />
      ${e.kind==="power"?t("action","Action",["start","stop","shutdown","reboot"],e.action):u`${t("mode","Mode",["snapshot","suspend","stop"],e.mode)}
          <${D} name="retention" label="Backups kept (1–100)" error=${n} type="number" min="1" max="100" defaultValue=${e.retention} />`}
      <label class="check"><input type="checkbox" name="enabled" defaultChecked=${e.enabled} /> On</label>
    </div>
    <p id=${`words-${e.id}`} aria-live="polite" data-edit-words>${o}</p>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${s}>Cancel</button>
  </form>`}function ce(e,r,s,n){let[a,d]=(s||"00:00").split(":").map(Number);return e==="hourly"?`${Number(r)||0} * * * *`:e==="daily"?`${d} ${a} * * *`:`${d} ${a} * * ${n}`}function me({machines:e,onAdded:r}){let[s,n]=$(!1),[a,d]=$(null),[h,m]=$("power"),[o,p]=$("daily"),[t,i]=$("0"),[c,f]=$("03:00"),[w,b]=$("1"),[A,H]=$(""),[C,ee]=$("UTC"),M=o==="custom"?A:ce(o,t,c,w),_,N=[],V="";try{let l=O(M);_=j(l),N=Q(l,C,new Date)}catch(l){V=l.message}let B=(()=>{try{return new Intl.DateTimeFormat(void 0,{timeZone:C,dateStyle:"full",timeStyle:"short"})}catch{return null}})(),te=async l=>{l.preventDefault();let y=new FormData(l.target),x={machine_id:y.get("machine_id"),cron:M,timezone:C};h==="power"?x.action=y.get("action"):(x.retention=Number(y.get("retention")),x.mode=y.get("mode")),d(null);try{await T("POST",S[h],x),n(!1),r()}catch(P){d(P)}},k=(l,y,x,P,ne)=>u`<label class="choice"><input type="radio" name=${l} value=${y}
    checked=${P===y} onChange=${()=>ne(y)} /> ${x}</label>`,R=a?.fields?.cron;return s?u`<form class="card" onSubmit=${te} aria-label="New schedule">
    <${z} error=${a} />
    <fieldset><legend>Kind</legend>
      ${k("kind","power","Power",h,m)} ${k("kind","backup","Backup",h,m)}
    </fieldset>
    <div class="grid">
      <label class="field"><span>Machine</span><select name="machine_id" required
        aria-invalid=${a?.fields?.machine_id?"true":void 0}>
        ${e.map(l=>u`<option value=${l.id}>${l.name}</option>`)}</select>
        ${a?.fields?.machine_id&&u`<span class="field-error">${a.fields.machine_id}</span>`}</label>
      ${h==="power"?u`<label class="field"><span>Action</span><select name="action">
            ${["start","stop","shutdown","reboot"].map(l=>u`<option value=${l}>${l}</option>`)}</select></label>`:u`<${D} name="retention" label="Backups kept (1–100)" error=${a} type="number" min="1" max="100" defaultValue="7" />
            <label class="field"><span>Mode</span><select name="mode">
              ${["snapshot","suspend","stop"].map(l=>u`<option value=${l}>${l}</option>`)}</select></label>`}
    </div>
    <fieldset><legend>When</legend>
      ${k("preset","hourly","Hourly",o,p)} ${k("preset","daily","Daily",o,p)}
      ${k("preset","weekly","Weekly",o,p)} ${k("preset","custom","Cron expression",o,l=>{H(M),p(l)})}
      <div class="grid">
        ${o==="hourly"&&u`<label class="field"><span>At minute</span><input type="number" min="0" max="59" value=${t} onInput=${l=>i(l.target.value)} /></label>`}
        ${o==="weekly"&&u`<label class="field"><span>On</span><select value=${w} onChange=${l=>b(l.target.value)}>
          ${U.map((l,y)=>u`<option value=${y}>${l}</option>`)}</select></label>`}
        ${(o==="daily"||o==="weekly")&&u`<label class="field"><span>At (HH:MM)</span><input type="time" value=${c} onInput=${l=>f(l.target.value)} /></label>`}
        <label class="field"><span>Cron expression (minute hour day-of-month month day-of-week)</span>
          <input name="cron" value=${M} readonly=${o!=="custom"} spellcheck="false"
            onInput=${l=>{H(l.target.value),p("custom")}}
            aria-invalid=${R?"true":void 0} aria-describedby="cron-words" />
          ${R&&u`<span class="field-error" id="cron-error">${R}</span>`}</label>
        <label class="field"><span>Time zone</span>
          <input name="timezone" value=${C} onInput=${l=>ee(l.target.value.trim())}
            aria-invalid=${a?.fields?.timezone?"true":void 0} />
          ${a?.fields?.timezone&&u`<span class="field-error">${a.fields.timezone}</span>`}</label>
      </div>
      <p id="cron-words" aria-live="polite" data-runs-at>${_?`Runs ${_} (${C}).`:`This page cannot read the expression: ${V}.`}</p>
      ${_&&N.length===0&&u`<p>It does not run in the next five years.</p>`}
      ${N.length>0&&B&&u`<p>The next runs:</p><ol class="runs" data-next-runs>${N.map(l=>u`<li>${B.format(l)}</li>`)}</ol>`}
    </fieldset>
    <button type="submit" class="primary">Add schedule</button> <button type="button" onClick=${()=>n(!1)}>Cancel</button>
  </form>`:u`<button class="primary" onClick=${()=>n(!0)}>New schedule</button>`}export{ve as Schedules};
