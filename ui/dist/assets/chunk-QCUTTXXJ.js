import{a as r}from"./chunk-PBPSO6V7.js";import{g as a}from"./chunk-XGWGEZEQ.js";var u="/api/resources/locations?limit=200",$="/api/client/locations?limit=200";function f(t=!0,e=u){let o=r(t?e:null),s=Object.fromEntries((o?.items||[]).map(i=>[i.id,i.name]));return{list:o,items:o?.items||[],names:s}}var m=t=>`${t.name}${t.default?" (default)":""}${t.available===!1?" (unavailable)":""}`,x=(t,e)=>t[e||"default"]||e||"default",v=t=>e=>(e.location||"default")===(t||"default");function h({name:t="location_id",label:e="Location",items:o,error:s,none:i,value:c,onChange:d,defaultValue:p}){let n=s?.fields?.[t];return a`<label class="field"><span>${e}</span>
    <select name=${t} value=${c} onChange=${d}
      aria-invalid=${n?"true":void 0} aria-describedby=${n?`${t}-error`:void 0}>
      ${i&&a`<option value="">${i}</option>`}
      ${o.map(l=>a`<option value=${l.id} selected=${c===void 0&&p===l.id}>${m(l)}</option>`)}
    </select>${n&&a`<span class="field-error" id=${`${t}-error`}>${n}</span>`}</label>`}var g=t=>f(!0,t?u:$);export{u as a,f as b,x as c,v as d,h as e,g as f};
