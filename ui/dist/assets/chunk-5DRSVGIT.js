import{a as c}from"./chunk-PBPSO6V7.js";import{g as o}from"./chunk-XGWGEZEQ.js";var p="/api/resources/locations?limit=200";function m(e=!0){let t=c(e?p:null),s=Object.fromEntries((t?.items||[]).map(i=>[i.id,i.name]));return{list:t,items:t?.items||[],names:s}}var b=(e,t)=>e[t||"default"]||t||"default",x=e=>t=>(t.location||"default")===(e||"default");function L({name:e="location_id",label:t="Location",items:s,error:i,none:r,value:l,onChange:d,defaultValue:u}){let n=i?.fields?.[e];return o`<label class="field"><span>${t}</span>
    <select name=${e} value=${l} onChange=${d}
      aria-invalid=${n?"true":void 0} aria-describedby=${n?`${e}-error`:void 0}>
      ${r&&o`<option value="">${r}</option>`}
      ${s.map(a=>o`<option value=${a.id} selected=${l===void 0&&u===a.id}>${a.name}${a.default?" (default)":""}</option>`)}
    </select>${n&&o`<span class="field-error" id=${`${e}-error`}>${n}</span>`}</label>`}export{p as a,m as b,b as c,x as d,L as e};
