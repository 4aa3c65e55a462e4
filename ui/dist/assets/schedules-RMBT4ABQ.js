import{a as Z}from"./chunk-MV7NMHT5.js";import{a as J}from"./chunk-GA4CKMMI.js";import{a as p,b as U,j as E,n as I,p as A,q as H}from"./chunk-VVJEA7B6.js";import{g as u}from"./chunk-XGWGEZEQ.js";var B={second:[0,59],minute:[0,59],hour:[0,23],dom:[1,31],month:[1,12],dow:[0,6]},ne=["jan","feb","mar","apr","may","jun","jul","aug","sep","oct","nov","dec"],K=["sun","mon","tue","wed","thu","fri","sat"],z=["Sunday","Monday","Tuesday","Wednesday","Thursday","Friday","Saturday"],oe=["January","February","March","April","May","June","July","August","September","October","November","December"],q={"@yearly":"0 0 0 1 1 *","@annually":"0 0 0 1 1 *","@monthly":"0 0 0 1 * *","@weekly":"0 0 0 * * 0","@daily":"0 0 0 * * *","@midnight":"0 0 0 * * *","@hourly":"0 0 * * * *"};function j(t,n){let r=n==="month"?ne:n==="dow"?K:null,o=r?r.indexOf(t.toLowerCase()):-1;if(o>=0)return n==="month"?o+1:o;if(!/^\d+$/.test(t))throw new Error(`${n}: ${t} is not a number`);return Number(t)}function se(t,n){let[r,o]=B[n],s=new Set,l=!1;for(let c of t.split(",")){let[h,e]=c.split("/"),m=e===void 0?1:j(e,n);if(e!==void 0&&(!/^\d+$/.test(e)||m<1))throw new Error(`${n}: step ${e}`);let i,d;if(h==="*"||h==="?")[i,d]=[r,o],m===1&&(l=!0);else{let[$,x]=h.split("-");i=j($,n),d=x===void 0?e===void 0?i:o:j(x,n)}if(i<r||d>o||i>d)throw new Error(`${n}: ${h} is outside ${r}-${o}`);for(let $=i;$<=d;$+=m)s.add($)}return{set:s,star:l}}function re(t){let n={h:36e5,m:6e4,s:1e3,ms:1},r=0,o=t,s=/^(\d+(?:\.\d+)?)(h|ms|m|s)/;if(!o)throw new Error("no duration");for(;o;){let l=s.exec(o);if(!l)throw new Error(`${t} is not a duration`);r+=Number(l[1])*n[l[2]],o=o.slice(l[0].length)}return Math.max(1e3,Math.ceil(r/1e3)*1e3)}function O(t){let n=t.trim();if(n.startsWith("@every "))return{every:re(n.slice(7).trim())};if(n.startsWith("@")){if(!q[n])throw new Error(`unknown descriptor ${n}`);n=q[n]}let r=n.split(/\s+/);if(r.length===5&&r.unshift("0"),r.length!==6)throw new Error("wants five fields: minute hour day-of-month month day-of-week");let[o,s,l,c,h,e]=r.map((m,i)=>se(m,Object.keys(B)[i]));return{second:o,minute:s,hour:l,dom:c,month:h,dow:e}}function ae(t){let n=new Intl.DateTimeFormat("en-US",{timeZone:t,hourCycle:"h23",year:"numeric",month:"numeric",day:"numeric",hour:"numeric",minute:"numeric",weekday:"short"});return r=>{let o={};for(let{type:s,value:l}of n.formatToParts(new Date(r)))o[s]=l;return{month:+o.month,dom:+o.day,hour:+o.hour%24,minute:+o.minute,dow:K.indexOf(o.weekday.toLowerCase().slice(0,3))}}}var y=6e4;function V(t,n,r,o=5){let s=[];if(t.every){let i=Math.floor(r.getTime()/1e3)*1e3;for(let d=1;d<=o;d++)s.push(new Date(i+d*t.every));return s}let l=ae(n),c=i=>t.dom.star||t.dow.star?t.dom.set.has(i.dom)&&t.dow.set.has(i.dow):t.dom.set.has(i.dom)||t.dow.set.has(i.dow),h=[...t.second.set].sort((i,d)=>i-d),e=Math.floor(r.getTime()/y)*y,m=e+5*366*24*60*y;for(;e<m&&s.length<o;){let i=l(e);if(!t.month.set.has(i.month)||!c(i)){e+=(1440-i.hour*60-i.minute)*y;let d=l(e);d.dom!==i.dom&&(d.hour||d.minute)&&(e-=(d.hour*60+d.minute)*y);continue}if(!t.hour.set.has(i.hour)){e+=(60-i.minute)*y;continue}if(t.minute.set.has(i.minute))for(let d of h){let $=e+d*1e3;$>r.getTime()&&s.length<o&&s.push(new Date($))}e+=y}return s}var w=t=>t.length<2?t.join(""):`${t.slice(0,-1).join(", ")} and ${t[t.length-1]}`,_=t=>String(t).padStart(2,"0"),g=t=>[...t.set].sort((n,r)=>n-r);function W(t){if(t.every){let e=t.every/1e3;return`every ${e%3600===0?`${e/3600} hour(s)`:e%60===0?`${e/60} minute(s)`:`${e} second(s)`}`}let n=g(t.minute),r=g(t.hour),o=g(t.second),s;n.length===1&&r.length===1?s=`at ${_(r[0])}:${_(n[0])}`:n.length===1&&t.hour.star?s=`every hour at minute ${n[0]}`:t.minute.star&&t.hour.star?s="every minute":r.length*n.length<=6?s=`at ${w(r.flatMap(e=>n.map(m=>`${_(e)}:${_(m)}`)))}`:s=`at minute ${t.minute.star?"every":w(n)} of ${t.hour.star?"every hour":`hour ${w(r)}`}`,(o.length!==1||o[0]!==0)&&(s=`${s}, second ${t.second.star?"every":w(o)}`);let l=[],c=g(t.dow);t.dom.star||l.push(`on day ${w(g(t.dom))} of the month`),t.dow.star||l.push(`on ${w(c.map(e=>z[e]))}`);let h=`${s}${l.length?` ${l.join(" or ")}`:s.startsWith("every")?"":" every day"}`;return t.month.star||(h+=` in ${w(g(t.month).map(e=>oe[e-1]))}`),h}var S={power:"/api/resources/power-schedules",backup:"/api/resources/backup-schedules"},ie="/api/client/machines?limit=100";async function G(t){let n=[],r="";do{let o=await E("GET",`${t}?limit=100${r?`&cursor=${encodeURIComponent(r)}`:""}`);n.push(...o.items),r=o.next_cursor||""}while(r);return n}function le(t){try{return W(O(t))}catch{return t}}function be(){let[t,n]=p(null),[r,o]=p(null),s=Z(ie),l=Object.fromEntries((s?.items||[]).map(e=>[e.id,e.name])),c=()=>Promise.all([G(S.power),G(S.backup)]).then(([e,m])=>n([...e.map(i=>({...i,kind:"power"})),...m.map(i=>({...i,kind:"backup"}))]),o);U(()=>{c()},[]);let h=e=>E("DELETE",`${S[e.kind]}/${encodeURIComponent(e.id)}`).then(c,o);return u`<main id="main">
    <h1>Schedules</h1>
    <${A} error=${r} />
    <${de} machines=${s?.items||[]} onAdded=${c} />
    ${t&&u`<div class="table-wrap"><table>
      <caption class="sr-only">Power and backup schedules</caption>
      <thead><tr><th scope="col">Machine</th><th scope="col">Does</th><th scope="col">When</th><th scope="col">Next run</th>
        <th scope="col">Last run</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${t.map(e=>u`<tr key=${e.id} data-schedule=${e.id} data-kind=${e.kind}>
        <td>${l[e.machine_id]||e.machine_id}</td>
        <td>${e.kind==="power"?e.action:`back up (${e.mode}), keep ${e.retention}`}</td>
        <td><code>${e.cron}</code> <span data-words>${le(e.cron)}</span> (${e.timezone})${e.enabled?"":", off"}</td>
        <td>${I(e.next_run_at)}</td>
        <td>${e.last_run_at?`${I(e.last_run_at)}: ${e.last_status||""}`:"never"}</td>
        <td><${J} name="delete" label="Delete" question="Delete this schedule?" yes="Delete" onYes=${()=>h(e)} /></td>
      </tr>`)}</tbody>
    </table></div>
    ${t.length===0&&u`<p>No schedules yet.</p>`}`}
  </main>`}function ue(t,n,r,o){let[s,l]=(r||"00:00").split(":").map(Number);return t==="hourly"?`${Number(n)||0} * * * *`:t==="daily"?`${l} ${s} * * *`:`${l} ${s} * * ${o}`}function de({machines:t,onAdded:n}){let[r,o]=p(!1),[s,l]=p(null),[c,h]=p("power"),[e,m]=p("daily"),[i,d]=p("0"),[$,x]=p("03:00"),[P,Y]=p("1"),[Q,F]=p(""),[k,X]=p("UTC"),M=e==="custom"?Q:ue(e,i,$,P),T,D=[],L="";try{let a=O(M);T=W(a),D=V(a,k,new Date)}catch(a){L=a.message}let R=(()=>{try{return new Intl.DateTimeFormat(void 0,{timeZone:k,dateStyle:"full",timeStyle:"short"})}catch{return null}})(),ee=async a=>{a.preventDefault();let f=new FormData(a.target),v={machine_id:f.get("machine_id"),cron:M,timezone:k};c==="power"?v.action=f.get("action"):(v.retention=Number(f.get("retention")),v.mode=f.get("mode")),l(null);try{await E("POST",S[c],v),o(!1),n()}catch(N){l(N)}},b=(a,f,v,N,te)=>u`<label class="choice"><input type="radio" name=${a} value=${f}
    checked=${N===f} onChange=${()=>te(f)} /> ${v}</label>`,C=s?.fields?.cron;return r?u`<form class="card" onSubmit=${ee} aria-label="New schedule">
    <${A} error=${s} />
    <fieldset><legend>Kind</legend>
      ${b("kind","power","Power",c,h)} ${b("kind","backup","Backup",c,h)}
    </fieldset>
    <div class="grid">
      <label class="field"><span>Machine</span><select name="machine_id" required
        aria-invalid=${s?.fields?.machine_id?"true":void 0}>
        ${t.map(a=>u`<option value=${a.id}>${a.name}</option>`)}</select>
        ${s?.fields?.machine_id&&u`<span class="field-error">${s.fields.machine_id}</span>`}</label>
      ${c==="power"?u`<label class="field"><span>Action</span><select name="action">
            ${["start","stop","shutdown","reboot"].map(a=>u`<option value=${a}>${a}</option>`)}</select></label>`:u`<${H} name="retention" label="Backups kept (1–100)" error=${s} type="number" min="1" max="100" defaultValue="7" />
            <label class="field"><span>Mode</span><select name="mode">
              ${["snapshot","suspend","stop"].map(a=>u`<option value=${a}>${a}</option>`)}</select></label>`}
    </div>
    <fieldset><legend>When</legend>
      ${b("preset","hourly","Hourly",e,m)} ${b("preset","daily","Daily",e,m)}
      ${b("preset","weekly","Weekly",e,m)} ${b("preset","custom","Cron expression",e,a=>{F(M),m(a)})}
      <div class="grid">
        ${e==="hourly"&&u`<label class="field"><span>At minute</span><input type="number" min="0" max="59" value=${i} onInput=${a=>d(a.target.value)} /></label>`}
        ${e==="weekly"&&u`<label class="field"><span>On</span><select value=${P} onChange=${a=>Y(a.target.value)}>
          ${z.map((a,f)=>u`<option value=${f}>${a}</option>`)}</select></label>`}
        ${(e==="daily"||e==="weekly")&&u`<label class="field"><span>At (HH:MM)</span><input type="time" value=${$} onInput=${a=>x(a.target.value)} /></label>`}
        <label class="field"><span>Cron expression (minute hour day-of-month month day-of-week)</span>
          <input name="cron" value=${M} readonly=${e!=="custom"} spellcheck="false"
            onInput=${a=>{F(a.target.value),m("custom")}}
            aria-invalid=${C?"true":void 0} aria-describedby="cron-words" />
          ${C&&u`<span class="field-error" id="cron-error">${C}</span>`}</label>
        <label class="field"><span>Time zone</span>
          <input name="timezone" value=${k} onInput=${a=>X(a.target.value.trim())}
            aria-invalid=${s?.fields?.timezone?"true":void 0} />
          ${s?.fields?.timezone&&u`<span class="field-error">${s.fields.timezone}</span>`}</label>
      </div>
      <p id="cron-words" aria-live="polite" data-runs-at>${T?`Runs ${T} (${k}).`:`This page cannot read the expression: ${L}.`}</p>
      ${T&&D.length===0&&u`<p>It does not run in the next five years.</p>`}
      ${D.length>0&&R&&u`<p>The next runs:</p><ol class="runs" data-next-runs>${D.map(a=>u`<li>${R.format(a)}</li>`)}</ol>`}
    </fieldset>
    <button type="submit" class="primary">Add schedule</button> <button type="button" onClick=${()=>o(!1)}>Cancel</button>
  </form>`:u`<button class="primary" onClick=${()=>o(!0)}>New schedule</button>`}export{be as Schedules};
