import{b as v,c as q,d as A,e as F,f as L,g as N,h as T,i as C,j as D,k as w,l as E}from"./chunk-TKVFPSWN.js";import{a as g,b,c as o}from"./chunk-WREHZWVI.js";import{a as r}from"./chunk-DWKZJOBD.js";import"./chunk-VZOWYPFL.js";import"./chunk-6PNQ3PEV.js";import{a as u,e as f,g as h,h as $,i as P,j as k,q as M,r as d}from"./chunk-FIHVQ2RM.js";import{f as S,g as e}from"./chunk-XGWGEZEQ.js";function B(){let[i,n]=u(null),[a,t]=u(null),[l,s]=u(!1);return e`<main id="main" class="login">
    <form onSubmit=${async m=>{m.preventDefault();let p=new FormData(m.target);s(!0),n(null);try{a?await $("login/totp",{challenge:a,code:p.get("code")}):await $("login",{email:p.get("email"),password:p.get("password")})}catch(c){c.code==="totp_required"&&c.challenge?t(c.challenge):n(c)}finally{s(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${M} error=${i} />
      ${a?e`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${d} key="code" name="code" label="Code" error=${i} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:e`<${d} key="email" name="email" label="E-mail" error=${i} type="email" autocomplete="username" required autofocus />
          <${d} name="password" label="Password" error=${i} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${l}>${a?"Verify":"Sign in"}</button>
    </form>
  </main>`}var W=r(()=>import("./account-5UIILA3Y.js"),"Account"),z=r(()=>import("./firewall-OOQ3JL2L.js"),"Firewall"),G=r(()=>import("./schedules-7KKJQHT5.js"),"Schedules"),I=r(()=>import("./tenants-LBWKVP6F.js"),"Tenants"),O=r(()=>import("./tenants-LBWKVP6F.js"),"Tenant"),R=r(()=>import("./plans-5ULAPMLH.js"),"Plans"),U=f(null),_=null;function j(){return _||=import("./admin-MKPZWNCC.js").then(i=>{U.value=i}),U.value}var x=f(!1);P().catch(()=>{}).finally(()=>{x.value=!0});var V=["/account","Account",F],H=[["/machines","Machines",v],["/firewall","Firewall",N],["/schedules","Schedules",T],V],J=[["/admin/dashboard","Dashboard",L],["/admin/machines","Machines",v],["/admin/nodes","Nodes",q],["/admin/tenants","Tenants",C],["/admin/plans","Plans",D],V];function K({admin:i}){let n=g.value,a;if(o("/account",n))return e`<${W} />`;if(i){let t=j();return t?(a=o("/admin/machines/:id",n))?e`<${w} id=${a.id} admin tenant=${new URLSearchParams(n.split("?")[1]||"").get("tenant")||""} />`:o("/admin/nodes",n)?e`<${t.Nodes} />`:(a=o("/admin/tenants/:id",n))?e`<${O} id=${a.id} />`:o("/admin/tenants",n)?e`<${I} />`:o("/admin/plans",n)?e`<${R} />`:o("/admin/machines",n)?e`<${t.AdminMachines} />`:e`<${t.Dashboard} />`:e`<main id="main"><p>Loading…</p></main>`}return(a=o("/machines/:id",n))?e`<${w} id=${a.id} />`:o("/firewall",n)?e`<${z} />`:o("/schedules",n)?e`<${G} />`:e`<${E} />`}function Q(){let i=h.value,n=i.user?.role==="admin",a=n?J:H,t=g.value.split("?")[0],l=a[0][0];return(t==="/"||t==="/login"||t!=="/account"&&n!==t.startsWith("/admin"))&&queueMicrotask(()=>b(l,!0)),e`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${l}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${a.map(([s,y,m])=>e`<li><a href=${s} aria-current=${t.startsWith(s)?"page":void 0}><${m} />${y}</a></li>`)}
      </ul></nav>
      <span class="who">${i.user?.email}</span>
      <button class="quiet" onClick=${()=>k().then(()=>b("/login",!0))}><${A} />Sign out</button>
    </header>
    <${K} admin=${n} />`}function X(){return x.value?h.value?e`<${Q} />`:e`<${B} />`:e`<main id="main"><p>Loading…</p></main>`}S(e`<${X} />`,document.getElementById("app"));
