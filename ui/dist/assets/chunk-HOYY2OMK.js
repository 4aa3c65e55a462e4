import{a as c,b as l,c as e}from"./chunk-E4PU34WH.js";import{g as o}from"./chunk-XGWGEZEQ.js";function d({label:i,question:s,yes:$,onYes:b,disabled:p,name:r}){let[t,n]=c(!1),a=e(null),f=e(null),u=e(!1);return l(()=>{t?a.current?.focus():u.current&&f.current?.focus(),u.current=t},[t]),t?o`<span class="confirm" role="group" aria-label=${s} onKeyDown=${m=>m.key==="Escape"&&n(!1)}>
    <span>${s}</span>
    <button type="button" class="danger" ref=${a} data-confirm-yes=${r} onClick=${()=>{n(!1),b()}}>${$}</button>
    <button type="button" onClick=${()=>n(!1)}>Cancel</button>
  </span>`:o`<button type="button" ref=${f} disabled=${p} data-confirm=${r} onClick=${()=>n(!0)}>${i}</button>`}export{d as a};
