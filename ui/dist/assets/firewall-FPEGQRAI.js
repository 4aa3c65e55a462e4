import{a as R}from"./chunk-GA4CKMMI.js";import{a as $,b as v,c as C,j as h,p as A,q as m}from"./chunk-VVJEA7B6.js";import{g as s}from"./chunk-XGWGEZEQ.js";var w="/api/client/firewall/rules";async function T(){let o=[],r="";do{let n=await h("GET",`${w}?limit=100${r?`&cursor=${encodeURIComponent(r)}`:""}`);o.push(...n.items),r=n.next_cursor||""}while(r);return o}var d=o=>o.comment||`${o.direction} ${o.protocol}${o.port?` ${o.port}`:""} ${o.action}`;function _(){let[o,r]=$(null),[n,a]=$(null),[D,c]=$(""),[b,p]=$(null),i=C(null),u=C(null),l=()=>T().then(r,a);v(()=>{l()},[]),v(()=>{let t=i.current;if(!t||!u.current)return;i.current=null;let e=u.current.querySelector(`tr[data-rule="${CSS.escape(t.id)}"]`);(t.control&&e?.querySelector(`button[data-move="${t.control}"]:not([disabled])`)||e)?.focus()},[o]);let y=async(t,e,f)=>{if(!(!o||e<1||e>o.length||e===t.position)){a(null);try{await h("PATCH",`${w}/${encodeURIComponent(t.id)}`,{position:e}),i.current={id:t.id,control:f},await l(),c(`${d(t)} moved to position ${e} of ${o.length}.`)}catch(g){a(g),c(`Could not move ${d(t)}: ${g.message}`)}}},k=async t=>{a(null);try{await h("DELETE",`${w}/${encodeURIComponent(t.id)}`),await l(),c(`${d(t)} deleted.`)}catch(e){a(e)}},E=t=>e=>{!e.altKey||e.key!=="ArrowUp"&&e.key!=="ArrowDown"||(e.preventDefault(),y(t,t.position+(e.key==="ArrowUp"?-1:1)))},P=t=>e=>{e.preventDefault();let f=o?.find(g=>g.id===(e.dataTransfer.getData("text/plain")||b));p(null),f&&y(f,t.position)};return s`<main id="main">
    <h1>Firewall</h1>
    <p>Rules apply in order, the first that matches deciding. Drag a row to move it, or
      focus a row and press Alt+Up or Alt+Down, or use its move buttons.</p>
    <p class="sr-only" role="status" aria-live="polite" data-announce>${D}</p>
    <${A} error=${n} />
    <${x} count=${o?.length||0} onAdded=${t=>{l(),c(`${d(t)} added at position ${t.position}.`)}} />
    ${o&&s`<div class="table-wrap"><table class="rules">
      <caption class="sr-only">Firewall rules, in the order they apply</caption>
      <thead><tr><th scope="col">#</th><th scope="col">Direction</th><th scope="col">Action</th><th scope="col">Protocol</th>
        <th scope="col">Port</th><th scope="col">Source</th><th scope="col">Destination</th><th scope="col">Machine</th>
        <th scope="col">Comment</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody ref=${u}>${o.map(t=>s`<tr key=${t.id} data-rule=${t.id} data-position=${t.position} tabindex="0"
          draggable="true" class=${b===t.id?"dragging":void 0}
          aria-label=${`Rule ${t.position} of ${o.length}: ${d(t)}`}
          onKeyDown=${E(t)}
          onDragStart=${e=>{e.dataTransfer.setData("text/plain",t.id),e.dataTransfer.effectAllowed="move",p(t.id)}}
          onDragEnd=${()=>p(null)}
          onDragOver=${e=>{e.preventDefault(),e.dataTransfer.dropEffect="move"}}
          onDrop=${P(t)}>
        <td>${t.position}</td><td>${t.direction}</td><td>${t.action}</td><td>${t.protocol}</td>
        <td>${t.port||"any"}</td><td>${t.source||"any"}</td><td>${t.destination||"any"}</td>
        <td>${t.machine_id||"all"}</td><td>${t.comment}</td>
        <td class="row-actions">
          <button type="button" data-move="up" disabled=${t.position===1} aria-label=${`Move ${d(t)} up`}
            onClick=${()=>y(t,t.position-1,"up")}>↑</button>
          <button type="button" data-move="down" disabled=${t.position===o.length} aria-label=${`Move ${d(t)} down`}
            onClick=${()=>y(t,t.position+1,"down")}>↓</button>
          <${R} name="delete" label="Delete" question=${`Delete ${d(t)}?`} yes="Delete" onYes=${()=>k(t)} />
        </td>
      </tr>`)}</tbody>
    </table></div>
    ${o.length===0&&s`<p>No rules yet.</p>`}`}
  </main>`}var S=(o,r,n)=>s`<label class="field"><span>${r}</span>
  <select name=${o}>${n.map(a=>s`<option value=${a}>${a}</option>`)}</select></label>`;function x({count:o,onAdded:r}){let[n,a]=$(null),[D,c]=$(!1),b=async p=>{p.preventDefault();let i=new FormData(p.target),u={direction:i.get("direction"),action:i.get("action"),protocol:i.get("protocol")};for(let l of["port","source","destination","comment","machine_id"])i.get(l)&&(u[l]=i.get(l).trim());i.get("position")&&(u.position=Number(i.get("position"))),a(null);try{r(await h("POST",w,u)),p.target.reset(),c(!1)}catch(l){a(l)}};return D?s`<form class="card" onSubmit=${b} aria-label="New rule">
    <${A} error=${n} />
    <div class="grid">
      ${S("direction","Direction",["in","out"])}
      ${S("action","Action",["accept","drop","reject"])}
      ${S("protocol","Protocol",["tcp","udp","icmp","ipv6-icmp","any"])}
      <${m} name="port" label="Port (e.g. 22 or 8000:8080)" error=${n} />
      <${m} name="source" label="Source (address or CIDR)" error=${n} />
      <${m} name="destination" label="Destination" error=${n} />
      <${m} name="machine_id" label="Machine (empty: all)" error=${n} />
      <${m} name="position" label=${`Position (1–${o+1}, empty: last)`} error=${n} type="number" min="1" />
      <${m} name="comment" label="Comment" error=${n} />
    </div>
    <button type="submit" class="primary">Add rule</button> <button type="button" onClick=${()=>c(!1)}>Cancel</button>
  </form>`:s`<button class="primary" onClick=${()=>c(!0)}>New rule</button>`}export{_ as Firewall,d as ruleName};
