import{a as T}from"./chunk-HOYY2OMK.js";import{a as h,b as v,l as w,p as S,r as D,s as k,u as _}from"./chunk-E4PU34WH.js";import{g as o}from"./chunk-XGWGEZEQ.js";function E(){let[n,l]=h(null);return[n,async c=>{l(null);try{return await c(),!0}catch(i){return l(i),!1}}]}var C=[["disk","Disk"],["cdrom","CD-ROM"],["net","Network (PXE)"]];function M({m:n,act:l,ended:m,onGone:c}){let[i,t]=E(),[a,s]=h(null),u=`/api/resources/machines/${encodeURIComponent(n.id)}`,p=async r=>{r.preventDefault();let e=String(new FormData(r.target).get("name")).trim();e!==n.name&&await t(()=>l("PATCH",u,{name:e}))},b=async r=>{r.preventDefault();let e=new FormData(r.target),d=["boot0","boot1","boot2"].map(g=>String(e.get(g)||"")).filter(Boolean);await t(()=>l("PUT","/boot-order",{order:d}))};v(()=>{a&&w("GET",`/api/tasks/${encodeURIComponent(a)}`).then(r=>{r.status==="succeeded"&&c()},()=>{})},[m,a]);let $=async()=>{let r;await t(async()=>{r=await l("DELETE","")})&&s(r.id)},f=n.boot_order||[],y=r=>i?.fields?.[r]&&o`<span class="field-error" id=${`${r}-error`}>${i.fields[r]}</span>`;return o`<${_} id="manage-part" title="Name, boot order and deletion">
    <${D} error=${i} />
    <form class="inline-form" onSubmit=${p} aria-label="Rename">
      <${k} key=${n.name} name="name" label="Name" error=${i} required maxlength="63" defaultValue=${n.name} spellcheck="false" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline-form" onSubmit=${b} aria-label="Boot order" key=${f.join(",")}>
      ${["First","Then","Last"].map((r,e)=>o`<label class="field"><span>${r}</span>
        <select name=${`boot${e}`} aria-describedby=${i?.fields?.order?"order-error":void 0}>
          <option value="">${e?"nothing more":"choose a device"}</option>
          ${C.map(([d,g])=>o`<option value=${d} selected=${f[e]===d}>${g}</option>`)}
        </select></label>`)}
      <button type="submit">Set the boot order</button>
      ${y("order")}
    </form>
    <p class="muted">The boot order applies at the next start.${n.boot_order?` Now: ${n.boot_order.join(", ")}.`:""}</p>
    ${a?o`<p role="status" data-deleting>Deleting the machine…</p>`:o`<${T} name="delete-machine" label="Delete this machine" yes="Yes, delete it"
        question=${`Delete ${n.name}, its disks with it? This cannot be undone.`} onYes=${$} />`}
  <//>`}function N({m:n,virt:l,act:m,run:c,error:i}){let t=async a=>{a.preventDefault();let s=new FormData(a.target),u={size_gb:Number(s.get("size_gb"))};String(s.get("storage")).trim()&&(u.storage=String(s.get("storage")).trim()),await c(()=>m("POST",`${l}/disks`,u))&&a.target.reset()};return o`<h3>Disks</h3>
    <ul data-disks>${(n.disks||[]).map(a=>o`<li key=${a.id}>${a.id}: ${a.size_gb} GB on ${a.storage}</li>`)}</ul>
    <form class="inline-form" onSubmit=${t} aria-label="Add a disk">
      <${k} name="size_gb" label="New disk (GB)" error=${i} type="number" min="1" required />
      <${k} name="storage" label="Storage (blank: the machine's)" error=${i} spellcheck="false" />
      <button type="submit">Add the disk</button>
    </form>`}function O({m:n,virt:l,act:m,run:c}){let i=async(t,a)=>{t.preventDefault();let s=new FormData(t.target),u={bridge:String(s.get("bridge")).trim(),vlan:Number(s.get("vlan")||0),rate_mbps:Number(s.get("rate_mbps")||0),firewall:s.get("firewall")==="on"},p=Object.fromEntries(Object.entries(u).filter(([b,$])=>$!==a[b]));Object.keys(p).length&&await c(()=>m("PATCH",`${l}/network`,{interfaces:[{id:a.id,...p}]}))};return o`<h3>Network</h3>
    ${(n.interfaces||[]).map(t=>o`<form key=${`${t.id}/${t.bridge}/${t.vlan}/${t.rate_mbps}/${t.firewall}`} class="inline-form" data-interface=${t.id}
      onSubmit=${a=>i(a,t)} aria-label=${`Interface ${t.id}`}>
      <label class="field"><span>${t.id} bridge</span><input name="bridge" defaultValue=${t.bridge} required spellcheck="false" /></label>
      <label class="field"><span>VLAN (0: untagged)</span><input name="vlan" type="number" min="0" max="4094" defaultValue=${t.vlan} /></label>
      <label class="field"><span>Rate (Mbit/s, 0: unlimited)</span><input name="rate_mbps" type="number" min="0" defaultValue=${t.rate_mbps} /></label>
      <label class="check"><input type="checkbox" name="firewall" defaultChecked=${t.firewall} /> Firewall</label>
      <button type="submit">Save ${t.id}</button>
    </form>`)}`}function A({m:n,act:l,onMachine:m}){let[c,i]=E(),[t,a]=h(null),s=`/api/virt/vms/${encodeURIComponent(n.id)}`;v(()=>{w("GET","/api/virt/nodes?limit=500").then(e=>a(e.items),()=>a([]))},[]);let u=(t||[]).filter(e=>e.name!==n.node&&(e.location_id||e.location||"default")===(n.location_id||"default")),p=async e=>{e.preventDefault();let d=new FormData(e.target);await i(()=>l("POST",`${s}/migrate`,{target_node:String(d.get("target_node")),online:d.get("online")==="on"}))},b=(e,d,g)=>i(async()=>m(await w(e,`${s}${d}`,g))),$=async e=>{e.preventDefault();let d=new FormData(e.target);await b("POST","/suspend-billing",{reason:String(d.get("reason")).trim(),action:String(d.get("action"))})},[f,y]=h(!1),r=n.billing_suspension;return o`<${_} id="operate-part" title="Operator">
    <${D} error=${c} />
    <form class="inline-form" onSubmit=${p} aria-label="Migrate">
      <label class="field"><span>Migrate to node</span><select name="target_node" required aria-invalid=${c?.fields?.target_node?"true":void 0}>
        ${u.length===0&&o`<option value="">${t?"no other node":"loading…"}</option>`}
        ${u.map(e=>o`<option value=${e.id||e.name}>${e.name}${e.status!=="online"?` (${e.status})`:""}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="online" defaultChecked=${n.status==="running"} /> Online (the machine keeps running)</label>
      <button type="submit" disabled=${u.length===0}>Migrate</button>
    </form>
    <${N} m=${n} virt=${s} act=${l} run=${i} error=${c} />
    <${O} m=${n} virt=${s} act=${l} run=${i} />
    <h3>Billing</h3>
    ${r?o`<p data-billing>Suspended since ${S(r.since)}: ${r.reason} (${r.action}). Its tenant's users can read it but change nothing.</p>
        <div class="inline-form"><label class="check"><input type="checkbox" checked=${f} onChange=${e=>y(e.target.checked)} /> Start it again</label>
        <button type="button" data-unsuspend onClick=${()=>b("POST","/unsuspend-billing",{start:f})}>End the suspension</button></div>`:o`<form class="inline-form" onSubmit=${$} aria-label="Suspend for billing">
        <${k} name="reason" label="Reason (its tenant's users see it)" error=${c} required maxlength="500" />
        <label class="field"><span>A running machine is</span><select name="action">
          <option value="stop">stopped</option><option value="suspend">suspended</option><option value="none">left running</option></select></label>
        <button type="submit">Suspend for billing</button></form>`}
    <h3>Termination</h3>
    ${n.terminate_at?o`<p data-terminate>Marked for deletion with its snapshots and backups at ${S(n.terminate_at)}.</p>
        <button type="button" data-terminate-back onClick=${()=>b("DELETE","/terminate")}>Take the termination back</button>`:o`<${T} name="terminate" label="Terminate" yes="Yes, terminate it"
        question=${`Delete ${n.name} with every snapshot and backup it has, after the grace the server allows?`} onYes=${()=>b("POST","/terminate")} />`}
  <//>`}export{M as Manage,A as Operate};
