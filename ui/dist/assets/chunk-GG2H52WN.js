import{a as n,b as p,l as f,p as i,r as $,s as u,t as h,u as b}from"./chunk-E4PU34WH.js";import{g as s}from"./chunk-XGWGEZEQ.js";var g=o=>`${o}T00:00:00Z`,y=o=>o.toISOString().slice(0,10);function k({path:o}){let c=new Date,[a,T]=n({from:y(new Date(Date.UTC(c.getUTCFullYear(),c.getUTCMonth(),1))),to:y(c)}),[e,_]=n(null),[d,l]=n(null);p(()=>{let t=new Date(g(a.to));t.setUTCDate(t.getUTCDate()+1);let r=new URLSearchParams({from:g(a.from),to:t.toISOString().replace(".000","")});l(null),f("GET",`${o}${o.includes("?")?"&":"?"}${r}`).then(_,l)},[o,a]);let w=t=>{t.preventDefault();let r=new FormData(t.target);T({from:r.get("from"),to:r.get("to")})},m=(t,r)=>s`<tr key=${t.machine_id||"total"}>${r?s`<th scope="row">Total</th>`:s`<td>${t.name}</td>`}
    <td>${t.hours}</td><td>${t.core_hours}</td><td>${t.memory_mb_hours}</td><td>${t.disk_gb_hours}</td>
    <td>${t.backup_hours}</td><td>${t.snapshot_hours}</td><td>${h(t.traffic_in_bytes)}</td><td>${h(t.traffic_out_bytes)}</td></tr>`;return s`<${b} id="usage-part" title="Usage for invoices">
    <form onSubmit=${w} aria-label="Usage period" class="inline-form">
      <${u} name="from" label="From (UTC)" error=${d} type="date" defaultValue=${a.from} required />
      <${u} name="to" label="To, included" error=${d} type="date" defaultValue=${a.to} required />
      <button type="submit">Show</button>
    </form>
    <${$} error=${d} />
    ${e&&s`<p id="usage-period">From ${i(e.from)} to ${i(e.to)}${e.gaps?`, ${e.gaps} hours not counted (no run closed them)`:""}.</p>
    <div class="table-wrap" tabindex="0"><table data-usage aria-describedby="usage-period">
      <thead><tr><th scope="col">Machine</th><th scope="col">Hours</th><th scope="col">Core hours</th><th scope="col">Memory MB hours</th><th scope="col">Disk GB hours</th>
        <th scope="col">Backup hours</th><th scope="col">Snapshot hours</th><th scope="col">Traffic in</th><th scope="col">Traffic out</th></tr></thead>
      <tbody>${e.lines.map(t=>m(t))}</tbody>
      <tfoot>${m(e.totals,!0)}</tfoot>
    </table></div>`}
  <//>`}export{k as a};
