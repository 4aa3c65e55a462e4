import{a as O,d as N}from"./chunk-PBPSO6V7.js";import{a as C}from"./chunk-HOYY2OMK.js";import{a as y,b as S,l as v,n as P,o as E,p as D,r as w,s as h,u as T}from"./chunk-E4PU34WH.js";import{g as o}from"./chunk-XGWGEZEQ.js";function F(){let[t,s]=y(null);return[t,async d=>{s(null);try{return await d(),!0}catch(c){return s(c),!1}}]}var M=[["disk","Disk"],["cdrom","CD-ROM"],["net","Network (PXE)"]];function I({m:t,act:s,ended:$,own:d,onGone:c}){let[e,a]=F(),[l,u]=y(null),r=`/api/resources/machines/${encodeURIComponent(t.id)}`,p=async i=>{i.preventDefault();let n=String(new FormData(i.target).get("name")).trim();n!==t.name&&await a(()=>s("PATCH",r,{name:n}))},m=async i=>{i.preventDefault();let n=new FormData(i.target),b=["boot0","boot1","boot2"].map(k=>String(n.get(k)||"")).filter(Boolean);await a(()=>s("PUT","/boot-order",{order:b}))};S(()=>{l&&v("GET",`/api/tasks/${encodeURIComponent(l)}`).then(i=>{i.status==="succeeded"&&c()},()=>{})},[$,l]);let f=async()=>{let i;await a(async()=>{i=await s("DELETE",d?r:"")})&&u(i.id)},g=t.boot_order||[],_=i=>e?.fields?.[i]&&o`<span class="field-error" id=${`${i}-error`}>${e.fields[i]}</span>`;return o`<${T} id="manage-part" title="Name, boot order and deletion">
    <${w} error=${e} />
    <form class="inline-form" onSubmit=${p} aria-label="Rename">
      <${h} key=${t.name} name="name" label="Name" error=${e} required maxlength="63" defaultValue=${t.name} spellcheck="false" />
      <button type="submit">Rename</button>
    </form>
    <form class="inline-form" onSubmit=${m} aria-label="Boot order" key=${g.join(",")}>
      ${["First","Then","Last"].map((i,n)=>o`<label class="field"><span>${i}</span>
        <select name=${`boot${n}`} aria-describedby=${e?.fields?.order?"order-error":void 0}>
          <option value="">${n?"nothing more":"choose a device"}</option>
          ${M.map(([b,k])=>o`<option value=${b} selected=${g[n]===b}>${k}</option>`)}
        </select></label>`)}
      <button type="submit">Set the boot order</button>
      ${_("order")}
    </form>
    <p class="muted">The boot order applies at the next start.${t.boot_order?` Now: ${t.boot_order.join(", ")}.`:""}</p>
    ${l?o`<p role="status" data-deleting>Deleting the machine…</p>`:o`<${C} name="delete-machine" label="Delete this machine" yes="Yes, delete it"
        question=${`Delete ${t.name}, its disks with it? This cannot be undone.`} onYes=${f} />`}
  <//>`}function R({m:t,virt:s,act:$,run:d,error:c}){let e=async a=>{a.preventDefault();let l=new FormData(a.target),u={size_gb:Number(l.get("size_gb"))};String(l.get("storage")).trim()&&(u.storage=String(l.get("storage")).trim()),await d(()=>$("POST",`${s}/disks`,u))&&a.target.reset()};return o`<h3>Disks</h3>
    <ul data-disks>${(t.disks||[]).map(a=>o`<li key=${a.id}>${a.id}: ${a.size_gb} GB on ${a.storage}</li>`)}</ul>
    <form class="inline-form" onSubmit=${e} aria-label="Add a disk">
      <${h} name="size_gb" label="New disk (GB)" error=${c} type="number" min="1" required />
      <${h} name="storage" label="Storage (blank: the machine's)" error=${c} spellcheck="false" />
      <button type="submit">Add the disk</button>
    </form>`}function x({m:t,virt:s,act:$,run:d}){let c=async(e,a)=>{e.preventDefault();let l=new FormData(e.target),u={bridge:String(l.get("bridge")).trim(),vlan:Number(l.get("vlan")||0),rate_mbps:Number(l.get("rate_mbps")||0),firewall:l.get("firewall")==="on"},r=Object.fromEntries(Object.entries(u).filter(([p,m])=>m!==a[p]));Object.keys(r).length&&await d(()=>$("PATCH",`${s}/network`,{interfaces:[{id:a.id,...r}]}))};return o`<h3>Network</h3>
    ${(t.interfaces||[]).map(e=>o`<form key=${`${e.id}/${e.bridge}/${e.vlan}/${e.rate_mbps}/${e.firewall}`} class="inline-form" data-interface=${e.id}
      onSubmit=${a=>c(a,e)} aria-label=${`Interface ${e.id}`}>
      <label class="field"><span>${e.id} bridge</span><input name="bridge" defaultValue=${e.bridge} required spellcheck="false" /></label>
      <label class="field"><span>VLAN (0: untagged)</span><input name="vlan" type="number" min="0" max="4094" defaultValue=${e.vlan} /></label>
      <label class="field"><span>Rate (Mbit/s, 0: unlimited)</span><input name="rate_mbps" type="number" min="0" defaultValue=${e.rate_mbps} /></label>
      <label class="check"><input type="checkbox" name="firewall" defaultChecked=${e.firewall} /> Firewall</label>
      <button type="submit">Save ${e.id}</button>
    </form>`)}`}function z({m:t,virt:s,act:$,run:d,error:c}){let e=O(N),[a,l]=y(""),u=async r=>{r.preventDefault();let p=new FormData(r.target),m={};for(let f of["cpu_cores","memory_mb"]){let g=Number(p.get(f));p.get(f)&&g!==t[f]&&(m[f]=g)}Object.keys(m).length&&await d(()=>$("PATCH",`${s}/config`,m))};return o`<h3>Size and plan</h3>
    <${w} error=${e?.error} />
    ${e?.items?.length>0&&o`<div class="inline-form" data-config-plan>
      <label class="field"><span>Plan</span><select name="plan_id" value=${a} onChange=${r=>l(r.target.value)}>
        <option value="">choose a plan</option>
        ${e.items.map(r=>o`<option value=${r.id}>${r.name}: ${r.cpu_cores} CPU, ${P(r.memory_mb)}, ${E(r.disk_gb)}${r.id===t.plan_id?" (current)":""}</option>`)}
      </select></label>
      <button type="button" disabled=${!a} onClick=${()=>d(()=>$("POST",`${s}/plan`,{plan_id:a}))}>Move to plan</button>
    </div>`}
    <form key=${`${t.cpu_cores}/${t.memory_mb}`} class="inline-form" onSubmit=${u} aria-label="Size" data-config>
      <${h} name="cpu_cores" label="CPU cores" error=${c} type="number" min="1" defaultValue=${t.cpu_cores} />
      <${h} name="memory_mb" label="Memory (MB)" error=${c} type="number" min="1" defaultValue=${t.memory_mb} />
      <button type="submit">Change the size</button>
    </form>`}function L({m:t,act:s,own:$,onMachine:d}){let[c,e]=F(),[a,l]=y(null),u=`/api/virt/vms/${encodeURIComponent(t.id)}`;S(()=>{v("GET","/api/virt/nodes?limit=500").then(n=>l(n.items),()=>l([]))},[]);let r=(a||[]).filter(n=>n.name!==t.node&&(n.location_id||n.location||"default")===(t.location_id||"default")),p=async n=>{n.preventDefault();let b=new FormData(n.target);await e(()=>s("POST",`${u}/migrate`,{target_node:String(b.get("target_node")),online:b.get("online")==="on"}))},m=(n,b,k)=>e(async()=>d(await v(n,`${u}${b}`,k))),f=async n=>{n.preventDefault();let b=new FormData(n.target);await m("POST","/suspend-billing",{reason:String(b.get("reason")).trim(),action:String(b.get("action"))})},[g,_]=y(!1),i=t.billing_suspension;return o`<${T} id="operate-part" title="Operator">
    <${w} error=${c} />
    <form class="inline-form" onSubmit=${p} aria-label="Migrate">
      <label class="field"><span>Migrate to node</span><select name="target_node" required aria-invalid=${c?.fields?.target_node?"true":void 0}>
        ${r.length===0&&o`<option value="">${a?"no other node":"loading…"}</option>`}
        ${r.map(n=>o`<option value=${n.id||n.name}>${n.name}${n.status!=="online"?` (${n.status})`:""}</option>`)}</select></label>
      <label class="check"><input type="checkbox" name="online" defaultChecked=${t.status==="running"} /> Online (the machine keeps running)</label>
      <button type="submit" disabled=${r.length===0}>Migrate</button>
    </form>
    ${$&&o`<${z} m=${t} virt=${u} act=${s} run=${e} error=${c} />`}
    <${R} m=${t} virt=${u} act=${s} run=${e} error=${c} />
    <${x} m=${t} virt=${u} act=${s} run=${e} />
    <h3>Billing</h3>
    ${i?o`<p data-billing>Suspended since ${D(i.since)}: ${i.reason} (${i.action}). Its tenant's users can read it but change nothing.</p>
        <div class="inline-form"><label class="check"><input type="checkbox" checked=${g} onChange=${n=>_(n.target.checked)} /> Start it again</label>
        <button type="button" data-unsuspend onClick=${()=>m("POST","/unsuspend-billing",{start:g})}>End the suspension</button></div>`:o`<form class="inline-form" onSubmit=${f} aria-label="Suspend for billing">
        <${h} name="reason" label="Reason (its tenant's users see it)" error=${c} required maxlength="500" />
        <label class="field"><span>A running machine is</span><select name="action">
          <option value="stop">stopped</option><option value="suspend">suspended</option><option value="none">left running</option></select></label>
        <button type="submit">Suspend for billing</button></form>`}
    <h3>Termination</h3>
    ${t.terminate_at?o`<p data-terminate>Marked for deletion with its snapshots and backups at ${D(t.terminate_at)}.</p>
        <button type="button" data-terminate-back onClick=${()=>m("DELETE","/terminate")}>Take the termination back</button>`:o`<${C} name="terminate" label="Terminate" yes="Yes, terminate it"
        question=${`Delete ${t.name} with every snapshot and backup it has, after the grace the server allows?`} onYes=${()=>m("POST","/terminate")} />`}
  <//>`}export{I as Manage,L as Operate};
