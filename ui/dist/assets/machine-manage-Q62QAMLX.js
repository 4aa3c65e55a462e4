import{a as E}from"./chunk-HOYY2OMK.js";import{a as b,b as v,l as g,p as w,r as S,s as D,u as T}from"./chunk-E4PU34WH.js";import{g as a}from"./chunk-XGWGEZEQ.js";function _(){let[n,r]=b(null);return[n,async s=>{r(null);try{return await s(),!0}catch(i){return r(i),!1}}]}var C=[["disk","Disk"],["cdrom","CD-ROM"],["net","Network (PXE)"]];function M({m:n,act:r,ended:$,onGone:s}){let[i,c]=_(),[l,f]=b(null),u=`/api/resources/machines/${encodeURIComponent(n.id)}`,h=async t=>{t.preventDefault();let e=String(new FormData(t.target).get("name")).trim();e!==n.name&&await c(()=>r("PATCH",u,{name:e}))},d=async t=>{t.preventDefault();let e=new FormData(t.target),o=["boot0","boot1","boot2"].map(m=>String(e.get(m)||"")).filter(Boolean);await c(()=>r("PUT","/boot-order",{order:o}))};v(()=>{l&&g("GET",`/api/tasks/${encodeURIComponent(l)}`).then(t=>{t.status==="succeeded"&&s()},()=>{})},[$,l]);let y=async()=>{let t;await c(async()=>{t=await r("DELETE","")})&&f(t.id)},p=n.boot_order||[],k=t=>i?.fields?.[t]&&a`<span class="field-error" id=${`${t}-error`}>${i.fields[t]}</span>`;return a`<${T} id="manage-part" title="Name, boot order and deletion">
    <${S} error=${i} />
    <form class="inline-form" onSubmit=${h} aria-label="Rename">
      <${D} key=${n.name} name="name" label="Name" error=${i} required maxlength="63" defaultValue=${n.name} spellcheck="false" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline-form" onSubmit=${d} aria-label="Boot order" key=${p.join(",")}>
      ${["First","Then","Last"].map((t,e)=>a`<label class="field"><span>${t}</span>
        <select name=${`boot${e}`} aria-describedby=${i?.fields?.order?"order-error":void 0}>
          <option value="">${e?"nothing more":"choose a device"}</option>
          ${C.map(([o,m])=>a`<option value=${o} selected=${p[e]===o}>${m}</option>`)}
        </select></label>`)}
      <button type="submit">Set the boot order</button>
      ${k("order")}
    </form>
    <p class="muted">The boot order applies at the next start.${n.boot_order?` Now: ${n.boot_order.join(", ")}.`:""}</p>
    ${l?a`<p role="status" data-deleting>Deleting the machine…</p>`:a`<${E} name="delete-machine" label="Delete this machine" yes="Yes, delete it"
        question=${`Delete ${n.name}, its disks with it? This cannot be undone.`} onYes=${y} />`}
  <//>`}function q({m:n,act:r,onMachine:$}){let[s,i]=_(),[c,l]=b(null),f=`/api/virt/vms/${encodeURIComponent(n.id)}`;v(()=>{g("GET","/api/virt/nodes?limit=500").then(e=>l(e.items),()=>l([]))},[]);let u=(c||[]).filter(e=>e.name!==n.node&&(e.location_id||e.location||"default")===(n.location_id||"default")),h=async e=>{e.preventDefault();let o=new FormData(e.target);await i(()=>r("POST",`${f}/migrate`,{target_node:String(o.get("target_node")),online:o.get("online")==="on"}))},d=(e,o,m)=>i(async()=>$(await g(e,`${f}${o}`,m))),y=async e=>{e.preventDefault();let o=new FormData(e.target);await d("POST","/suspend-billing",{reason:String(o.get("reason")).trim(),action:String(o.get("action"))})},[p,k]=b(!1),t=n.billing_suspension;return a`<${T} id="operate-part" title="Operator">
    <${S} error=${s} />
    <form class="inline-form" onSubmit=${h} aria-label="Migrate">
      <label class="field"><span>Migrate to node</span><select name="target_node" required aria-invalid=${s?.fields?.target_node?"true":void 0}>
        ${u.length===0&&a`<option value="">${c?"no other node":"loading…"}</option>`}
        ${u.map(e=>a`<option value=${e.id||e.name}>${e.name}${e.status!=="online"?` (${e.status})`:""}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="online" defaultChecked=${n.status==="running"} /> Online (the machine keeps running)</label>
      <button type="submit" disabled=${u.length===0}>Migrate</button>
    </form>
    <h3>Billing</h3>
    ${t?a`<p data-billing>Suspended since ${w(t.since)}: ${t.reason} (${t.action}). Its tenant's users can read it but change nothing.</p>
        <div class="inline-form"><label class="check"><input type="checkbox" checked=${p} onChange=${e=>k(e.target.checked)} /> Start it again</label>
        <button type="button" data-unsuspend onClick=${()=>d("POST","/unsuspend-billing",{start:p})}>End the suspension</button></div>`:a`<form class="inline-form" onSubmit=${y} aria-label="Suspend for billing">
        <${D} name="reason" label="Reason (its tenant's users see it)" error=${s} required maxlength="500" />
        <label class="field"><span>A running machine is</span><select name="action">
          <option value="stop">stopped</option><option value="suspend">suspended</option><option value="none">left running</option></select></label>
        <button type="submit">Suspend for billing</button></form>`}
    <h3>Termination</h3>
    ${n.terminate_at?a`<p data-terminate>Marked for deletion with its snapshots and backups at ${w(n.terminate_at)}.</p>
        <button type="button" data-terminate-back onClick=${()=>d("DELETE","/terminate")}>Take the termination back</button>`:a`<${E} name="terminate" label="Terminate" yes="Yes, terminate it"
        question=${`Delete ${n.name} with every snapshot and backup it has, after the grace the server allows?`} onYes=${()=>d("POST","/terminate")} />`}
  <//>`}export{M as Manage,q as Operate};
