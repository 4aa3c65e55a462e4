import{a as R}from"./chunk-HOYY2OMK.js";import{a as f,b as E,c as A,l as w,r as S,s as h}from"./chunk-E4PU34WH.js";import{g as p}from"./chunk-XGWGEZEQ.js";var C="/api/client/firewall/rules";async function F(){let e=[],l="";do{let a=await w("GET",`${C}?limit=100${l?`&cursor=${encodeURIComponent(l)}`:""}`);e.push(...a.items),l=a.next_cursor||""}while(l);return e}var $=e=>e.comment||`${e.direction} ${e.protocol}${e.port?` ${e.port}`:""} ${e.action}`;function j(){let[e,l]=f(null),[a,r]=f(null),[m,s]=f(""),[y,c]=f(null),[n,d]=f(null),i=A(null),g=A(null),u=()=>F().then(l,r);E(()=>{u()},[]),E(()=>{let t=i.current;if(!t||!g.current)return;i.current=null;let o=g.current.querySelector(`tr[data-rule="${CSS.escape(t.id)}"]`);(t.control&&o?.querySelector(`button[data-move="${t.control}"]:not([disabled])`)||o)?.focus()},[e]);let b=async(t,o,D)=>{if(!(!e||o<1||o>e.length||o===t.position)){r(null);try{await w("PATCH",`${C}/${encodeURIComponent(t.id)}`,{position:o}),i.current={id:t.id,control:D},await u(),s(`${$(t)} moved to position ${o} of ${e.length}.`)}catch(k){r(k),s(`Could not move ${$(t)}: ${k.message}`)}}},P=async t=>{r(null);try{await w("DELETE",`${C}/${encodeURIComponent(t.id)}`),await u(),s(`${$(t)} deleted.`)}catch(o){r(o)}},x=t=>o=>{!o.altKey||o.key!=="ArrowUp"&&o.key!=="ArrowDown"||(o.preventDefault(),b(t,t.position+(o.key==="ArrowUp"?-1:1)))},T=t=>o=>{o.preventDefault();let D=e?.find(k=>k.id===(o.dataTransfer.getData("text/plain")||y));c(null),D&&b(D,t.position)};return p`<main id="main">
    <h1>Firewall</h1>
    <p>Rules apply in order, the first that matches deciding. Drag a row to move it, or
      focus a row and press Alt+Up or Alt+Down, or use its move buttons.</p>
    <p class="sr-only" role="status" aria-live="polite" data-announce>${m}</p>
    <${S} error=${a} />
    <${_} count=${e?.length||0} onAdded=${t=>{u(),s(`${$(t)} added at position ${t.position}.`)}} />
    ${e&&p`<div class="table-wrap" tabindex="0"><table class="rules">
      <caption class="sr-only">Firewall rules, in the order they apply</caption>
      <thead><tr><th scope="col">#</th><th scope="col">Direction</th><th scope="col">Action</th><th scope="col">Protocol</th>
        <th scope="col">Port</th><th scope="col">Source</th><th scope="col">Destination</th><th scope="col">Machine</th>
        <th scope="col">Comment</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody ref=${g}>${e.map(t=>p`<tr key=${t.id} data-rule=${t.id} data-position=${t.position} tabindex="0"
          draggable="true" class=${y===t.id?"dragging":void 0}
          aria-label=${`Rule ${t.position} of ${e.length}: ${$(t)}`}
          onKeyDown=${x(t)}
          onDragStart=${o=>{o.dataTransfer.setData("text/plain",t.id),o.dataTransfer.effectAllowed="move",c(t.id)}}
          onDragEnd=${()=>c(null)}
          onDragOver=${o=>{o.preventDefault(),o.dataTransfer.dropEffect="move"}}
          onDrop=${T(t)}>
        <td>${t.position}</td><td>${t.direction}</td><td>${t.action}${t.enabled===!1?" (off)":""}</td><td>${t.protocol}</td>
        <td>${t.port||"any"}</td><td>${t.source||"any"}</td><td>${t.destination||"any"}</td>
        <td>${t.machine_id||"all"}</td><td>${t.comment}</td>
        <td class="row-actions">
          <button type="button" data-edit aria-expanded=${n===t.id} aria-label=${`Edit ${$(t)}`}
            onClick=${()=>d(n===t.id?null:t.id)}>Edit</button>
          <button type="button" data-move="up" disabled=${t.position===1} aria-label=${`Move ${$(t)} up`}
            onClick=${()=>b(t,t.position-1,"up")}>↑</button>
          <button type="button" data-move="down" disabled=${t.position===e.length} aria-label=${`Move ${$(t)} down`}
            onClick=${()=>b(t,t.position+1,"down")}>↓</button>
          <${R} name="delete" label="Delete" question=${`Delete ${$(t)}?`} yes="Delete" onYes=${()=>P(t)} />
        </td>
      </tr>${n===t.id&&p`<tr key=${`${t.id}-edit`} class="edit-row"><td colspan="10">
        <${I} rule=${t} onCancel=${()=>{d(null),i.current={id:t.id},l([...e])}}
          onSaved=${o=>{d(null),i.current={id:t.id},u(),s(`${$(o)} saved.`)}} />
      </td></tr>`}`)}</tbody>
    </table></div>
    ${e.length===0&&p`<p>No rules yet.</p>`}`}
  </main>`}var v=(e,l,a,r)=>p`<label class="field"><span>${l}</span>
  <select name=${e} value=${r}>${a.map(m=>p`<option value=${m}>${m}</option>`)}</select></label>`,U=["direction","action","protocol","port","source","destination","machine_id","comment"];function I({rule:e,onSaved:l,onCancel:a}){let[r,m]=f(null),s=A(null);E(()=>{s.current?.querySelector("select")?.focus()},[]);let y=async n=>{n.preventDefault();let d=new FormData(n.target),i={};for(let u of U){let b=(d.get(u)||"").trim();b!==(e[u]||"")&&(i[u]=b===""?null:b)}let g=d.get("enabled")==="on";if(g!==(e.enabled!==!1)&&(i.enabled=g),m(null),Object.keys(i).length===0){a();return}try{l(await w("PATCH",`${C}/${encodeURIComponent(e.id)}`,i))}catch(u){m(u)}},c=(n,d)=>p`<${h} name=${n} label=${d} error=${r} defaultValue=${e[n]||""} />`;return p`<form onSubmit=${y} aria-label=${`Edit ${$(e)}`} onKeyDown=${n=>n.key==="Escape"&&a()}>
    <${S} error=${r} />
    <div class="grid" ref=${s}>
      ${v("direction","Direction",["in","out"],e.direction)}
      ${v("action","Action",["accept","drop","reject"],e.action)}
      ${v("protocol","Protocol",["tcp","udp","icmp","ipv6-icmp","any"],e.protocol)}
      ${c("port","Port (e.g. 22 or 8000:8080)")}
      ${c("source","Source (address or CIDR)")}
      ${c("destination","Destination")}
      ${c("machine_id","Machine (empty: all)")}
      ${c("comment","Comment")}
      <label class="check"><input type="checkbox" name="enabled" defaultChecked=${e.enabled!==!1} /> Enabled</label>
    </div>
    <button type="submit" class="primary">Save</button> <button type="button" onClick=${a}>Cancel</button>
  </form>`}function _({count:e,onAdded:l}){let[a,r]=f(null),[m,s]=f(!1),y=async c=>{c.preventDefault();let n=new FormData(c.target),d={direction:n.get("direction"),action:n.get("action"),protocol:n.get("protocol")};for(let i of["port","source","destination","comment","machine_id"])n.get(i)&&(d[i]=n.get(i).trim());n.get("position")&&(d.position=Number(n.get("position"))),r(null);try{l(await w("POST",C,d)),c.target.reset(),s(!1)}catch(i){r(i)}};return m?p`<form class="card" onSubmit=${y} aria-label="New rule">
    <${S} error=${a} />
    <div class="grid">
      ${v("direction","Direction",["in","out"])}
      ${v("action","Action",["accept","drop","reject"])}
      ${v("protocol","Protocol",["tcp","udp","icmp","ipv6-icmp","any"])}
      <${h} name="port" label="Port (e.g. 22 or 8000:8080)" error=${a} />
      <${h} name="source" label="Source (address or CIDR)" error=${a} />
      <${h} name="destination" label="Destination" error=${a} />
      <${h} name="machine_id" label="Machine (empty: all)" error=${a} />
      <${h} name="position" label=${`Position (1–${e+1}, empty: last)`} error=${a} type="number" min="1" />
      <${h} name="comment" label="Comment" error=${a} />
    </div>
    <button type="submit" class="primary">Add rule</button> <button type="button" onClick=${()=>s(!1)}>Cancel</button>
  </form>`:p`<button class="primary" onClick=${()=>s(!0)}>New rule</button>`}export{j as Firewall,$ as ruleName};
