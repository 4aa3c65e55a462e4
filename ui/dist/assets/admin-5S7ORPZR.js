import{b as o,c as i,d as u,j as b,k as h,l as $,n as f,o as g,r as y}from"./chunk-I57ED7QZ.js";var N=["","provisioning","running","stopped","suspended","migrating","error"];function M(){let[a,l]=i({name:"",status:"",node:"",tenant_id:""}),[n,d]=i([""]),[e,m]=i(null),[k,v]=i(null),p=n[n.length-1];return u(()=>{let t=new URLSearchParams({limit:"50"});for(let[r,s]of Object.entries(a))s&&t.set(r,s);p&&t.set("cursor",p),v(null),b("GET",`/api/resources/machines?${t}`).then(m,v)},[a,p]),u(()=>y((t,r)=>{t==="machine.updated"&&m(s=>s&&{...s,items:s.items.map(c=>c.id===r.id?{...c,...r}:c)}),t==="machine.deleted"&&m(s=>s&&{...s,items:s.items.filter(c=>c.id!==r.id)})}),[]),o`<main id="main">
    <h1>All machines</h1>
    <form class="filters" onSubmit=${t=>{t.preventDefault();let r=new FormData(t.target);l(Object.fromEntries(Object.keys(a).map(s=>[s,(r.get(s)||"").trim()]))),d([""])}} role="search" aria-label="Filter machines">
      <label class="field"><span>Name</span><input name="name" value=${a.name} /></label>
      <label class="field"><span>Status</span><select name="status" value=${a.status}>
        ${N.map(t=>o`<option value=${t}>${t||"any"}</option>`)}</select></label>
      <label class="field"><span>Node</span><input name="node" value=${a.node} /></label>
      <label class="field"><span>Tenant</span><input name="tenant_id" value=${a.tenant_id} /></label>
      <button type="submit">Filter</button>
    </form>
    <${g} error=${k} />
    ${e&&o`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Node</th><th scope="col">Tenant</th><th scope="col">Size</th></tr></thead>
      <tbody>${e.items.map(t=>o`<tr key=${t.id}><td>${t.name}</td><td><${f} value=${t.status} /></td>
        <td>${t.node}</td><td>${t.tenant_id||""}</td><td>${t.cpu_cores} CPU, ${h(t.memory_mb)}, ${$(t.disk_gb)}</td></tr>`)}</tbody>
    </table></div>
    <nav class="pager" aria-label="Pages">
      <button disabled=${n.length===1} onClick=${()=>d(n.slice(0,-1))}>Previous</button>
      <button disabled=${!e.next_cursor} onClick=${()=>d([...n,e.next_cursor])}>Next</button>
    </nav>`}
  </main>`}var _=(a,l)=>l>0?`${Math.round(100*a/l)}%`:"";function T(){let[a,l]=i(null),[n,d]=i(null);return u(()=>{b("GET","/api/virt/nodes?limit=500").then(l,d)},[]),o`<main id="main">
    <h1>Nodes</h1>
    <${g} error=${n} />
    ${a&&o`<div class="table-wrap"><table>
      <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col">CPU</th><th scope="col">Memory</th><th scope="col">Disk</th></tr></thead>
      <tbody>${a.items.map(e=>o`<tr key=${e.id}><td>${e.name}</td><td><${f} value=${e.status} /></td>
        <td>${e.cpu_cores} cores, ${Math.round((e.usage?.cpu||0)*100)}% busy</td>
        <td>${h(e.memory_mb)}, ${_(e.usage?.mem_bytes||0,e.memory_mb*1048576)} used</td>
        <td>${$(e.disk_gb)}, ${_(e.usage?.disk_bytes||0,e.disk_gb*1073741824)} used</td></tr>`)}</tbody>
    </table></div>`}
  </main>`}export{M as AdminMachines,T as Nodes};
