import{a as v}from"./chunk-GG2H52WN.js";import{a as h,b as g,l as u,n as f,o as b,r as p,t as d,u as m}from"./chunk-E4PU34WH.js";import{g as s}from"./chunk-XGWGEZEQ.js";var M=[["machines","Machines",String],["cpu_cores","CPU cores",String],["memory_mb","Memory",f],["disk_gb","Disk",b],["backups","Backups",String],["backup_gb","Backup space",b],["snapshots","Snapshots",String]];function _(e){let[r,i]=h({});return g(()=>{let o=!0;return u("GET",e).then(l=>o&&i({v:l}),l=>o&&i({e:l})),()=>{o=!1}},[e]),r}function E({tenant:e=""}){let r=e?`tenant_id=${encodeURIComponent(e)}`:"",{v:i,e:o}=_(`/api/client/overview${r?`?${r}`:""}`);return s`<main id="main">
    <h1>Overview${e?s` <span class="muted">of tenant ${e}</span>`:""}</h1>
    <${p} error=${o} />
    ${i&&s`<ul class="stats" aria-label="Machines">
      <li data-count="total"><strong>${i.machines.total}</strong> machines</li>
      <li data-count="running"><strong>${i.machines.running}</strong> running</li>
      <li data-count="stopped"><strong>${i.machines.stopped}</strong> stopped</li>
      <li><strong>${i.backups}</strong> backups</li>
      <li><strong>${i.alerts_open}</strong> open alerts</li>
    </ul>
    ${i.missing_nodes.length>0&&s`<p class="muted">Nodes not answering (their machines' states may be stale): ${i.missing_nodes.join(", ")}</p>`}
    <${m} id="quota-use" title="Quota">
      <div class="table-wrap" tabindex="0"><table>
        <thead><tr><th scope="col">Resource</th><th scope="col">Used</th><th scope="col">Limit</th><th scope="col">Use</th></tr></thead>
        <tbody>${M.map(([l,t,a])=>{let n=i.usage[l],c=i.quota[l];return s`<tr key=${l} data-quota=${l}><th scope="row">${t}</th><td>${a(n)}</td><td>${c<0?"unlimited":a(c)}</td>
            <td>${c>0?s`<meter min="0" max=${c} value=${n} high=${c*.9} aria-label=${`${t}: ${n} of ${c}`}>${Math.round(100*n/c)}%</meter>
              ${Math.round(100*n/c)}%`:c===0?"none allowed":""}</td></tr>`})}</tbody>
      </table></div>
    <//>`}
    <${S} q=${r} />
    <${T} q=${r} />
    <${v} path=${`/api/client/usage${r?`?${r}`:""}`} />
  </main>`}var y=[["cpu_core_hours","CPU core hours",e=>e.toFixed(1)],["memory_gb_hours","Memory GB hours",e=>e.toFixed(1)],["net_in_bytes","Traffic in",d],["net_out_bytes","Traffic out",d]];function U({points:e,k:r,days:i}){let o=Math.max(...e.map(a=>a[r]),0),l=6,t=Math.max(i,e.length)-e.length;return s`<svg class="bars" viewBox=${`0 0 ${Math.max(i,e.length)*l} 40`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
    ${e.map((a,n)=>{let c=o>0?Math.max(38*a[r]/o,a[r]>0?1:0):0;return s`<rect x=${(t+n)*l+1} y=${40-c} width=${l-2} height=${c}><title>${a.date}</title></rect>`})}
  </svg>`}function S({q:e}){let[r,i]=h(30),{v:o,e:l}=_(`/api/client/usage-trends?days=${r}${e?`&${e}`:""}`);return s`<${m} id="trends" title="Usage trends">
    <div class="inline-form" role="group" aria-label="Days">
      ${[7,30,90].map(t=>s`<button type="button" aria-pressed=${t===r?"true":"false"} onClick=${()=>i(t)}>${t} days</button>`)}
    </div>
    <${p} error=${l} />
    ${o&&s`${o.missing_machines.length>0&&s`<p class="muted">Left out (their graphs could not be read): ${o.missing_machines.join(", ")}</p>`}
      <div class="chart-grid">${y.map(([t,a,n])=>{let c=o.points.reduce((w,x)=>w+x[t],0),$=o.points[o.points.length-1];return s`<figure class="chart" key=${t} data-trend=${t}><figcaption>${a}</figcaption>
          <${U} points=${o.points} k=${t} days=${o.days} />
          <p>${n(c)} over ${o.days} days${$?`, ${n($[t])} on ${$.date}`:""}.</p></figure>`})}</div>
      <details><summary>Day by day</summary><div class="table-wrap" tabindex="0"><table data-trends>
        <thead><tr><th scope="col">Day</th>${y.map(([,t])=>s`<th scope="col">${t}</th>`)}</tr></thead>
        <tbody>${o.points.map(t=>s`<tr key=${t.date}><td>${t.date}</td>${y.map(([a,,n])=>s`<td>${n(t[a])}</td>`)}</tr>`)}</tbody>
      </table></div></details>`}
  <//>`}function T({q:e}){let[r,i]=h(null),[o,l]=h(null);return g(()=>{let t=!0,a=e?`?${e}`:"";return u("GET",`/api/client/machines?limit=100${e?`&${e}`:""}`).then(n=>Promise.all(n.items.map(c=>u("GET",`/api/client/machines/${encodeURIComponent(c.id)}/traffic${a}`).then($=>({m:c,tr:$}),$=>({m:c,err:$}))))).then(n=>t&&i(n),n=>t&&l(n)),()=>{t=!1}},[e]),s`<${m} id="traffic" title="Traffic this month">
    <${p} error=${o} />
    ${r&&(r.length===0?s`<p>No machines yet.</p>`:s`<div class="table-wrap" tabindex="0"><table>
      <thead><tr><th scope="col">Machine</th><th scope="col">Used</th><th scope="col">Allowance</th><th scope="col">Left</th></tr></thead>
      <tbody>${r.map(({m:t,tr:a,err:n})=>s`<tr key=${t.id} data-traffic=${t.name}><td>${t.name}</td>
        ${n?s`<td colspan="3">${n.title}${n.detail?`: ${n.detail}`:""}</td>`:s`
          <td>${d(a.total_bytes)} (in ${d(a.in_bytes)}, out ${d(a.out_bytes)})</td>
          <td>${a.allowance_bytes==null?"no allowance":d(a.allowance_bytes)}</td>
          <td data-left>${a.remaining_bytes==null?"":d(a.remaining_bytes)}${a.exceeded?s` <span class="badge s-error">exceeded: ${a.exceeded.action}</span>`:""}</td>`}</tr>`)}</tbody>
    </table></div>`)}
  <//>`}export{E as Overview};
