import{a as y,b as L,c as T,d as F,e as S,f as N,g as O,h as U,i as D,j as B,k as G,l as P,m as H}from"./chunk-ZC2GPQDY.js";import"./chunk-GJDTPUNE.js";import"./chunk-YQDC66KP.js";import{a as w,b,c as t}from"./chunk-AAFN3DY4.js";import{a as r}from"./chunk-D7552HJV.js";import"./chunk-4N27BIS6.js";import{a as c,b as A,e as $,g,h as v,i as M,j as q,k as C,q as E,r as p}from"./chunk-GR3JKDU4.js";import{f as k,g as e}from"./chunk-XGWGEZEQ.js";function I(){let[o,n]=c(null),[i,a]=c(null),[m,l]=c(!1),[d,h]=c([]);A(()=>{C("GET","/api/auth/oidc/providers").then(s=>h(s.providers||[]),()=>{})},[]);let _=encodeURIComponent(location.pathname==="/login"?"/":location.pathname+location.search);return e`<main id="main" class="login">
    <form onSubmit=${async s=>{s.preventDefault();let f=new FormData(s.target);l(!0),n(null);try{i?await v("login/totp",{challenge:i,code:f.get("code")}):await v("login",{email:f.get("email"),password:f.get("password")})}catch(u){u.code==="totp_required"&&u.challenge?a(u.challenge):n(u)}finally{l(!1)}}} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to vmplane</h1>
      <${E} error=${o} />
      ${i?e`<p>Enter a code of your authenticator app, or a recovery code.</p>
          <${p} key="code" name="code" label="Code" error=${o} autocomplete="one-time-code" inputmode="numeric" required autofocus />`:e`<${p} key="email" name="email" label="E-mail" error=${o} type="email" autocomplete="username" required autofocus />
          <${p} name="password" label="Password" error=${o} type="password" autocomplete="current-password" required />`}
      <button type="submit" disabled=${m}>${i?"Verify":"Sign in"}</button>
      ${!i&&d.length>0&&e`<div class="sso" role="group" aria-label="Single sign-on">
        <p class="muted">Or sign in with</p>
        ${d.map(s=>e`<a class="button" data-provider=${s.id} href=${`/api/auth/oidc/${encodeURIComponent(s.id)}/start?redirect_to=${_}`}>${s.name||s.id}</a>`)}
      </div>`}
    </form>
  </main>`}var z=r(()=>import("./account-PN637CDP.js"),"Account"),j=r(()=>import("./firewall-I4LGXEDO.js"),"Firewall"),J=r(()=>import("./schedules-OF52URN2.js"),"Schedules"),K=r(()=>import("./tenants-YKEEU27Q.js"),"Tenants"),Q=r(()=>import("./tenants-YKEEU27Q.js"),"Tenant"),X=r(()=>import("./plans-VQ3WCLMO.js"),"Plans"),R=r(()=>import("./overview-LLWTBQFR.js"),"Overview"),Y=r(()=>import("./ops-RPWYLWJK.js"),"Audit"),Z=r(()=>import("./ops-RPWYLWJK.js"),"Health"),x=$(null),ee=null;function ne(){return ee||=import("./admin-YUA2WSIA.js").then(o=>{x.value=o}),x.value}var V=$(!1);M().catch(()=>{}).finally(()=>{V.value=!0});var W=["/account","Account",F],ie=[["/machines","Machines",y],["/overview","Overview",S],["/firewall","Firewall",N],["/schedules","Schedules",O],W],te=[["/admin/dashboard","Dashboard",S],["/admin/machines","Machines",y],["/admin/nodes","Nodes",L],["/admin/tenants","Tenants",U],["/admin/plans","Plans",D],["/admin/health","Health checks",B],["/admin/audit","Audit log",G],W];function ae({admin:o}){let n=w.value,i;if(t("/account",n))return e`<${z} />`;if(o){let a=ne();return a?(i=t("/admin/machines/:id",n))?e`<${P} id=${i.id} admin tenant=${new URLSearchParams(n.split("?")[1]||"").get("tenant")||""} />`:t("/admin/nodes",n)?e`<${a.Nodes} />`:(i=t("/admin/tenants/:id/overview",n))?e`<${R} tenant=${i.id} />`:(i=t("/admin/tenants/:id",n))?e`<${Q} id=${i.id} />`:t("/admin/tenants",n)?e`<${K} />`:t("/admin/plans",n)?e`<${X} />`:t("/admin/health",n)?e`<${Z} />`:t("/admin/audit",n)?e`<${Y} />`:t("/admin/machines",n)?e`<${a.AdminMachines} />`:e`<${a.Dashboard} />`:e`<main id="main"><p>Loading…</p></main>`}return(i=t("/machines/:id",n))?e`<${P} id=${i.id} />`:t("/overview",n)?e`<${R} />`:t("/firewall",n)?e`<${j} />`:t("/schedules",n)?e`<${J} />`:e`<${H} />`}function oe(){let o=g.value,n=o.user?.role==="admin",i=n?te:ie,a=w.value.split("?")[0],m=i[0][0];return(a==="/"||a==="/login"||a!=="/account"&&n!==a.startsWith("/admin"))&&queueMicrotask(()=>b(m,!0)),e`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${m}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${i.map(([l,d,h])=>e`<li><a href=${l} aria-current=${a.startsWith(l)?"page":void 0}><${h} />${d}</a></li>`)}
      </ul></nav>
      <span class="who">${o.user?.email}</span>
      <button class="quiet" onClick=${()=>q().then(()=>b("/login",!0))}><${T} />Sign out</button>
    </header>
    <${ae} admin=${n} />`}function re(){return V.value?g.value?e`<${oe} />`:e`<${I} />`:e`<main id="main"><p>Loading…</p></main>`}k(e`<${re} />`,document.getElementById("app"));
