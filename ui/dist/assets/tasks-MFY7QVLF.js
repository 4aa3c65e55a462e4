import{a as m}from"./chunk-MTL65ZAK.js";import{a as c}from"./chunk-MIMHD4HQ.js";import{a as d,p as n,q as l,r as p}from"./chunk-E4PU34WH.js";import{g as e}from"./chunk-XGWGEZEQ.js";var g=a=>`/admin/machines/${encodeURIComponent(a.target_id)}${a.tenant_id?`?tenant=${encodeURIComponent(a.tenant_id)}`:""}`;function T(){let[a,h]=d("50"),{page:s,error:$,pager:u}=m(`/api/resources/tasks?limit=${a}`),r=c.value,i=s?s.items.map(t=>r[t.id]||t):[];if(s&&!s.next_cursor){let t=new Set(i.map(o=>o.id));i.push(...Object.values(r).filter(o=>!t.has(o.id)).sort((o,f)=>o.id<f.id?-1:1))}return e`<main id="main">
    <h1>Tasks</h1>
    <form class="filters one" onSubmit=${t=>t.preventDefault()} aria-label="Tasks a page">
      <label class="field"><span>A page</span><select name="limit" value=${a} onChange=${t=>h(t.target.value)}>
        ${["20","50","200"].map(t=>e`<option value=${t}>${t}</option>`)}</select></label>
    </form>
    <${p} error=${$} />
    ${s&&e`<div class="table-wrap" tabindex="0"><table data-tasks>
      <caption class="sr-only">Tasks, oldest first</caption>
      <thead><tr><th scope="col">Task</th><th scope="col">Target</th><th scope="col">Tenant</th><th scope="col">Status</th>
        <th scope="col">Created</th><th scope="col">Finished</th><th scope="col">Error</th></tr></thead>
      <tbody>${i.map(t=>e`<tr key=${t.id} data-task=${t.id}><td>${t.type}</td>
        <td>${t.target_type==="machine"?e`<a href=${g(t)}>${t.target_id}</a>`:`${t.target_type?`${t.target_type}/`:""}${t.target_id||""}`}</td>
        <td>${t.tenant_id||e`<span class="muted">none</span>`}</td><td><${l} value=${t.status} /></td>
        <td>${n(t.created_at)}</td><td>${t.finished_at?n(t.finished_at):""}</td><td>${t.error||""}</td></tr>`)}</tbody>
    </table></div>
    ${i.length===0&&e`<p>No tasks yet.</p>`}
    ${u}`}
  </main>`}export{T as Tasks};
