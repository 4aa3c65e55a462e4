// The console's entry: the session at start (the cookie's refresh, if any), the shell
// with its navigation, and the page of the path. The operator's pages and the account
// page are chunks of their own, loaded when first opened.
import { html } from 'htm/preact';
import { render } from 'preact';
import { signal } from '@preact/signals';
import { logout, renew, session } from './api.js';
import { go, match, path } from './router.js';
import { Login } from './pages/login.js';
import { Machines } from './pages/machines.js';
import { Machine } from './pages/machine.js';
import { lazy } from './lazy.js';
import * as icons from './icons.js';
import './live.js';

const Account = lazy(() => import('./pages/account.js'), 'Account');
const Firewall = lazy(() => import('./pages/firewall.js'), 'Firewall');
const Schedules = lazy(() => import('./pages/schedules.js'), 'Schedules');
const Tenants = lazy(() => import('./pages/tenants.js'), 'Tenants');
const Tenant = lazy(() => import('./pages/tenants.js'), 'Tenant');
const Plans = lazy(() => import('./pages/plans.js'), 'Plans');
const Overview = lazy(() => import('./pages/overview.js'), 'Overview');
const Audit = lazy(() => import('./pages/ops.js'), 'Audit');
const Health = lazy(() => import('./pages/ops.js'), 'Health');
const AdminSchedules = lazy(() => import('./pages/schedules.js'), 'AdminSchedules');
const Users = lazy(() => import('./pages/users.js'), 'Users');
const IPPools = lazy(() => import('./pages/ip-pools.js'), 'IPPools');
const Locations = lazy(() => import('./pages/locations.js'), 'Locations');
const Webhooks = lazy(() => import('./pages/webhooks.js'), 'Webhooks');
const ISOs = lazy(() => import('./pages/isos.js'), 'ISOs');
const AdminBackups = lazy(() => import('./pages/backups.js'), 'Backups');
const AdminTasks = lazy(() => import('./pages/tasks.js'), 'Tasks');

// admin holds the operator's pages once their chunk has loaded.
const admin = signal(null);
let loading = null;
function adminPages() {
  loading ||= import('./pages/admin.js').then((m) => { admin.value = m; });
  return admin.value;
}

// ready turns true once the start-up refresh has answered (signed in or not).
const ready = signal(false);
renew().catch(() => {}).finally(() => { ready.value = true; });

const account = ['/account', 'Account', icons.User];
const tenantNav = [['/machines', 'Machines', icons.Server], ['/overview', 'Overview', icons.Gauge], ['/firewall', 'Firewall', icons.Shield], ['/schedules', 'Schedules', icons.Clock],
  ['/webhooks', 'Webhooks', icons.Bell], ['/health', 'Health checks', icons.Pulse], account];
// The operator's pages, in three groups (a disclosure menu each) so the bar reads at a
// glance and fits one line at 1280 px: what runs (Fleet), who pays (Customers), what
// watches and records (Operations).
const adminNav = [
  ['Fleet', [['/admin/dashboard', 'Dashboard', icons.Gauge], ['/admin/machines', 'Machines', icons.Server], ['/admin/nodes', 'Nodes', icons.Nodes],
    ['/admin/locations', 'Locations', icons.Pin], ['/admin/ip-pools', 'IP pools', icons.Network], ['/admin/backups', 'Backups', icons.Archive],
    ['/admin/isos', 'ISO images', icons.Disc]]],
  ['Customers', [['/admin/tenants', 'Tenants', icons.Users], ['/admin/users', 'Users', icons.User], ['/admin/plans', 'Plans', icons.Box],
    ['/admin/webhooks', 'Webhooks', icons.Bell]]],
  ['Operations', [['/admin/schedules', 'Schedules', icons.Clock], ['/admin/health', 'Health checks', icons.Pulse],
    ['/admin/audit', 'Audit log', icons.List], ['/admin/tasks', 'Tasks', icons.Check]]],
  account];

// openGroup is the name of the operator's nav group whose menu is open, if any: one at
// a time, so opening one closes another.
const openGroup = signal('');

// current tells whether the page at here is the nav entry to (its own pages under it too).
const current = (to, here) => here === to || here.startsWith(to + '/');

// NavLink is one entry of the main navigation.
function NavLink({ to, label, Icon, here, onClick }) {
  return html`<a href=${to} aria-current=${current(to, here) ? 'page' : undefined} onClick=${onClick}><${Icon} />${label}</a>`;
}

// NavGroup is a disclosure menu of the nav: a button (aria-expanded) that shows or
// hides its list of links. Enter or Space opens it (the button's own), Escape closes
// it and gives the focus back to the button, ArrowDown/ArrowUp move along its links,
// and a click or the focus elsewhere closes it. The group of the page open is marked
// (aria-current) and names that page beside its own name.
function NavGroup({ name, links, here }) {
  const open = openGroup.value === name;
  const id = 'nav-' + name.toLowerCase();
  const at = links.find(([to]) => current(to, here));
  const close = (focus) => {
    openGroup.value = '';
    if (focus) document.getElementById(id + '-button')?.focus();
  };
  const onKeyDown = (e) => {
    const items = [...e.currentTarget.querySelectorAll('ul a')];
    const i = items.indexOf(document.activeElement);
    if (e.key === 'Escape' && open) {
      e.preventDefault();
      close(true);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? (i + 1) % items.length : (i <= 0 ? items.length - 1 : i - 1);
      const menu = e.currentTarget;
      if (open) items[next]?.focus();
      // A closed list is shown on the next render: its link takes the focus then.
      else {
        openGroup.value = name;
        requestAnimationFrame(() => menu.querySelectorAll('ul a')[next]?.focus());
      }
    }
  };
  const onFocusOut = (e) => {
    if (open && e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) close(false);
  };
  return html`<li class="menu" onKeyDown=${onKeyDown} onFocusOut=${onFocusOut}>
    <button type="button" id=${id + '-button'} aria-expanded=${open ? 'true' : 'false'} aria-controls=${id}
      aria-current=${at ? 'true' : undefined} onClick=${() => { openGroup.value = open ? '' : name; }}>
      ${name}${at && html`<span class="here">: ${at[1]}</span>`}<${icons.Down} /></button>
    <ul id=${id} hidden=${!open}>
      ${links.map(([to, label, Icon]) => html`<li><${NavLink} to=${to} label=${label} Icon=${Icon} here=${here} onClick=${() => close(false)} /></li>`)}
    </ul>
  </li>`;
}

// A click outside an open nav group closes it.
addEventListener('click', (e) => {
  if (openGroup.value && !e.target.closest?.('.menu')) openGroup.value = '';
});

function Page({ admin: isAdmin }) {
  const p = path.value;
  let m;
  if (match('/account', p)) return html`<${Account} />`;
  if (isAdmin) {
    const pages = adminPages();
    if (!pages) return html`<main id="main"><p>Loading…</p></main>`;
    if ((m = match('/admin/machines/:id', p))) return html`<${Machine} id=${m.id} admin tenant=${new URLSearchParams(p.split('?')[1] || '').get('tenant') || ''} />`;
    if (match('/admin/nodes', p)) return html`<${pages.Nodes} />`;
    if ((m = match('/admin/tenants/:id/overview', p))) return html`<${Overview} tenant=${m.id} />`;
    if ((m = match('/admin/tenants/:id', p))) return html`<${Tenant} id=${m.id} />`;
    if (match('/admin/tenants', p)) return html`<${Tenants} />`;
    if (match('/admin/schedules', p)) return html`<${AdminSchedules} />`;
    if (match('/admin/users', p)) return html`<${Users} />`;
    if (match('/admin/plans', p)) return html`<${Plans} />`;
    if (match('/admin/ip-pools', p)) return html`<${IPPools} />`;
    if (match('/admin/locations', p)) return html`<${Locations} />`;
    if (match('/admin/health', p)) return html`<${Health} />`;
    if (match('/admin/audit', p)) return html`<${Audit} />`;
    if (match('/admin/webhooks', p)) return html`<${Webhooks} admin />`;
    if (match('/admin/isos', p)) return html`<${ISOs} />`;
    if (match('/admin/backups', p)) return html`<${AdminBackups} />`;
    if (match('/admin/tasks', p)) return html`<${AdminTasks} />`;
    if (match('/admin/machines', p)) return html`<${pages.AdminMachines} />`;
    return html`<${pages.Dashboard} />`;
  }
  if ((m = match('/machines/:id', p))) return html`<${Machine} id=${m.id} />`;
  if (match('/overview', p)) return html`<${Overview} />`;
  if (match('/firewall', p)) return html`<${Firewall} />`;
  if (match('/schedules', p)) return html`<${Schedules} />`;
  if (match('/webhooks', p)) return html`<${Webhooks} />`;
  if (match('/health', p)) return html`<${Health} tenant />`;
  return html`<${Machines} />`;
}

function Shell() {
  const s = session.value;
  const admin = s.user?.role === 'admin';
  const nav = admin ? adminNav : tenantNav;
  const here = path.value.split('?')[0];
  const home = admin ? '/admin/dashboard' : nav[0][0];
  if (here === '/' || here === '/login' || (here !== '/account' && admin !== here.startsWith('/admin'))) {
    queueMicrotask(() => go(home, true));
  }
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${home}>vmplane</a>
      <nav aria-label="Main"><ul>
        ${nav.map(([to, label, Icon]) => (Array.isArray(label)
    ? html`<${NavGroup} name=${to} links=${label} here=${here} />`
    : html`<li><${NavLink} to=${to} label=${label} Icon=${Icon} here=${here} /></li>`))}
      </ul></nav>
      <span class="who">${s.user?.email}</span>
      <button class="quiet" onClick=${() => logout().then(() => go('/login', true))}><${icons.Out} />Sign out</button>
    </header>
    <${Page} admin=${admin} />`;
}

function App() {
  if (!ready.value) return html`<main id="main"><p>Loading…</p></main>`;
  return session.value ? html`<${Shell} />` : html`<${Login} />`;
}

render(html`<${App} />`, document.getElementById('app'));
