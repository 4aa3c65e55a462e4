import{a as E}from"./chunk-HOYY2OMK.js";import{a as g,b as S,l as y,p as D,r as _,s as h,u as T}from"./chunk-E4PU34WH.js";import{g as o}from"./chunk-XGWGEZEQ.js";function C(){let[n,s]=g(null);return[n,async c=>{s(null);try{return await c(),!0}catch(l){return s(l),!1}}]}var N=[["disk","Disk"],["cdrom","CD-ROM"],["net","Network (PXE)"]];function A({m:n,act:s,ended:u,own:c,onGone:l}){let[t,a]=C(),[r,d]=g(null),b=`/api/resources/machines/${encodeURIComponent(n.id)}`,m=async e=>{e.preventDefault();let i=String(new FormData(e.target).get("name")).trim();i!==n.name&&await a(()=>s("PATCH",b,{name:i}))},f=async e=>{e.preventDefault();let i=new FormData(e.target),$=["boot0","boot1","boot2"].map(v=>String(i.get(v)||"")).filter(Boolean);await a(()=>s("PUT","/boot-order",{order:$}))};S(()=>{r&&y("GET",`/api/tasks/${encodeURIComponent(r)}`).then(e=>{e.status==="succeeded"&&l()},()=>{})},[u,r]);let k=async()=>{let e;await a(async()=>{e=await s("DELETE",c?b:"")})&&d(e.id)},w=n.boot_order||[],p=e=>t?.fields?.[e]&&o`<span class="field-error" id=${`${e}-error`}>${t.fields[e]}</span>`;return o`<${T} id="manage-part" title="Name, boot order and deletion">
    <${_} error=${t} />
    <form class="inline-form" onSubmit=${m} aria-label="Rename">
      <${h} key=${n.name} name="name" label="Name" error=${t} required maxlength="63" defaultValue=${n.name} spellcheck="false" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline-form" onSubmit=${f} aria-label="Boot order" key=${w.join(",")}>
      ${["First","Then","Last"].map((e,i)=>o`<label class="field"><span>${e}</span>
        <select name=${`boot${i}`} aria-describedby=${t?.fields?.order?"order-error":void 0}>
          <option value="">${i?"nothing more":"choose a device"}</option>
          ${N.map(([$,v])=>o`<option value=${$} selected=${w[i]===$}>${v}</option>`)}
        </select></label>`)}
      <button type="submit">Set the boot order</button>
      ${p("order")}
    </form>
    <p class="muted">The boot order applies at the next start.${n.boot_order?` Now: ${n.boot_order.join(", ")}.`:""}</p>
    ${r?o`<p role="status" data-deleting>Deleting the machine…</p>`:o`<${E} name="delete-machine" label="Delete this machine" yes="Yes, delete it"
        question=${`Delete ${n.name}, its disks with it? This cannot be undone.`} onYes=${k} />`}
  <//>`}function O({m:n,virt:s,act:u,run:c,error:l}){let t=async a=>{a.preventDefault();let r=new FormData(a.target),d={size_gb:Number(r.get("size_gb"))};String(r.get("storage")).trim()&&(d.storage=String(r.get("storage")).trim()),await c(()=>u("POST",`${s}/disks`,d))&&a.target.reset()};return o`<h3>Disks</h3>
    <ul data-disks>${(n.disks||[]).map(a=>o`<li key=${a.id}>${a.id}: ${a.size_gb} GB on ${a.storage}</li>`)}</ul>
    <form class="inline-form" onSubmit=${t} aria-label="Add a disk">
      <${h} name="size_gb" label="New disk (GB)" error=${l} type="number" min="1" required />
      <${h} name="storage" label="Storage (blank: the machine's)" error=${l} spellcheck="false" />
      <button type="submit">Add the disk</button>
    </form>`}function P({m:n,virt:s,act:u,run:c}){let l=async(t,a)=>{t.preventDefault();let r=new FormData(t.target),d={bridge:String(r.get("bridge")).trim(),vlan:Number(r.get("vlan")||0),rate_mbps:Number(r.get("rate_mbps")||0),firewall:r.get("firewall")==="on"},b=Object.fromEntries(Object.entries(d).filter(([m,f])=>f!==a[m]));Object.keys(b).length&&await c(()=>u("PATCH",`${s}/network`,{interfaces:[{id:a.id,...b}]}))};return o`<h3>Network</h3>
    ${(n.interfaces||[]).map(t=>o`<form key=${`${t.id}/${t.bridge}/${t.vlan}/${t.rate_mbps}/${t.firewall}`} class="inline-form" data-interface=${t.id}
      onSubmit=${a=>l(a,t)} aria-label=${`Interface ${t.id}`}>
      <label class="field"><span>${t.id} bridge</span><input name="bridge" defaultValue=${t.bridge} required spellcheck="false" /></label>
      <label class="field"><span>VLAN (0: untagged)</span><input name="vlan" type="number" min="0" max="4094" defaultValue=${t.vlan} /></label>
      <label class="field"><span>Rate (Mbit/s, 0: unlimited)</span><input name="rate_mbps" type="number" min="0" defaultValue=${t.rate_mbps} /></label>
      <label class="check"><input type="checkbox" name="firewall" defaultChecked=${t.firewall} /> Firewall</label>
      <button type="submit">Save ${t.id}</button>
    </form>`)}`}function V({m:n,act:s,onMachine:u}){let[c,l]=C(),[t,a]=g(null),r=`/api/virt/vms/${encodeURIComponent(n.id)}`;S(()=>{y("GET","/api/virt/nodes?limit=500").then(e=>a(e.items),()=>a([]))},[]);let d=(t||[]).filter(e=>e.name!==n.node&&(e.location_id||e.location||"default")===(n.location_id||"default")),b=async e=>{e.preventDefault();let i=new FormData(e.target);await l(()=>s("POST",`${r}/migrate`,{target_node:String(i.get("target_node")),online:i.get("online")==="on"}))},m=(e,i,$)=>l(async()=>u(await y(e,`${r}${i}`,$))),f=async e=>{e.preventDefault();let i=new FormData(e.target);await m("POST","/suspend-billing",{reason:String(i.get("reason")).trim(),action:String(i.get("action"))})},[k,w]=g(!1),p=n.billing_suspension;return o`<${T} id="operate-part" title="Operator">
    <${_} error=${c} />
    <form class="inline-form" onSubmit=${b} aria-label="Migrate">
      <label class="field"><span>Migrate to node</span><select name="target_node" required aria-invalid=${c?.fields?.target_node?"true":void 0}>
        ${d.length===0&&o`<option value="">${t?"no other node":"loading…"}</option>`}
        ${d.map(e=>o`<option value=${e.id||e.name}>${e.name}${e.status!=="online"?` (${e.status})`:""}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="online" defaultChecked=${n.status==="running"} /> Online (the machine keeps running)</label>
      <button type="submit" disabled=${d.length===0}>Migrate</button>
    </form>
    <${O} m=${n} virt=${r} act=${s} run=${l} error=${c} />
    <${P} m=${n} virt=${r} act=${s} run=${l} />
    <h3>Billing</h3>
    ${p?o`<p data-billing>Suspended since ${D(p.since)}: ${p.reason} (${p.action}). Its tenant's users can read it but change nothing.</p>
        <div class="inline-form"><label class="check"><input type="checkbox" checked=${k} onChange=${e=>w(e.target.checked)} /> Start it again</label>
        <button type="button" data-unsuspend onClick=${()=>m("POST","/unsuspend-billing",{start:k})}>End the suspension</button></div>`:o`<form class="inline-form" onSubmit=${f} aria-label="Suspend for billing">
        <${h} name="reason" label="Reason (its tenant's users see it)" error=${c} required maxlength="500" />
        <label class="field"><span>A running machine is</span><select name="action">
          <option value="stop">stopped</option><option value="suspend">suspended</option><option value="none">left running</option></select></label>
        <button type="submit">Suspend for billing</button></form>`}
    <h3>Termination</h3>
    ${n.terminate_at?o`<p data-terminate>Marked for deletion with its snapshots and backups at ${D(n.terminate_at)}.</p>
        <button type="button" data-terminate-back onClick=${()=>m("DELETE","/terminate")}>Take the termination back</button>`:o`<${E} name="terminate" label="Terminate" yes="Yes, terminate it"
        question=${`Delete ${n.name} with every snapshot and backup it has, after the grace the server allows?`} onYes=${()=>m("POST","/terminate")} />`}
  <//>`}export{A as Manage,V as Operate};
