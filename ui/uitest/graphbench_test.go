package uitest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// graphTiming is the page's instrument for the year graphs: it keeps the number of
// points of every usage-graphs answer the page reads (a wrapper of fetch), and
// __ui.painted(), a promise of performance.now() once the four charts hold a canvas
// other than the ones there before and a frame has been drawn after them
// (requestAnimationFrame, then a task: the paint).
const graphTiming = `window.__ui = { served: {} };
const realFetch = window.fetch;
window.fetch = async (...args) => {
  const res = await realFetch(...args);
  const u = String(args[0] && args[0].url || args[0]);
  if (u.includes('usage-graphs')) {
    res.clone().json().then((g) => { __ui.served[new URL(u, location.href).searchParams.get('timeframe')] = (g.points || []).length; }, () => {});
  }
  return res;
};
__ui.canvases = () => [...document.querySelectorAll('figure[data-chart] canvas')];
__ui.painted = (before) => new Promise((resolve) => {
  let mo = null;
  const check = () => {
    const now = __ui.canvases();
    if (now.length < 4 || now.some((c) => before.includes(c))) return false;
    if (mo) mo.disconnect();
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
    return true;
  };
  if (check()) return;
  mo = new MutationObserver(check);
  mo.observe(document, { subtree: true, childList: true });
});`

// TestConsoleGraphYear (a longer run): the cluster's usage graphs on the operator's
// dashboard, switched to the year timeframe, timed in the browser from the click to
// the four charts drawn again (performance.now). Checked: the page read as many points
// as the API serves for the year; the time is logged, never asserted (BENCHMARKS.md).
func TestConsoleGraphYear(t *testing.T) {
	long(t)
	// Not t.Parallel: the parallel tests wait until this one has ended, so its
	// figures are the page's alone, not those of a browser busy with other tests.
	s := newSite(t)
	var g struct{ Points []map[string]any }
	s.call("GET", "/api/virt/cluster/usage-graphs?timeframe=year", s.admin, nil, 200, &g)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/dashboard", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the instrument", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(graphTiming).Do(ctx)
		return err
	}))
	run(t, ctx, "the dashboard's graphs",
		chromedp.Navigate(s.srv.Base+"/admin/dashboard"),
		chromedp.WaitVisible(`//section[@aria-labelledby="dash-graphs-title"]//figure[@data-chart="disk"]//canvas`),
	)
	var ms float64
	run(t, ctx, "the year's graphs", chromedp.Evaluate(`(async () => {
		const before = __ui.canvases();
		const t0 = performance.now();
		const done = __ui.painted(before);
		[...document.querySelectorAll('section[aria-labelledby="dash-graphs-title"] div[aria-label="Timeframe"] button')].find((b) => b.textContent.trim() === 'year').click();
		return (await done) - t0; })()`, &ms, awaitPromise))
	var served int
	var figures []string
	run(t, ctx, "what the page read",
		chromedp.Evaluate(`__ui.served.year ?? -1`, &served),
		chromedp.Evaluate(`[...document.querySelectorAll('section[aria-labelledby="dash-graphs-title"] figure[data-chart]')].map((f) => f.dataset.chart)`, &figures),
	)
	if served != len(g.Points) {
		t.Fatalf("the page read %d points for the year; the API serves %d", served, len(g.Points))
	}
	if strings.Join(figures, ",") != "cpu,mem,net,disk" {
		t.Fatalf("the year's charts: %v", figures)
	}
	t.Logf("year graphs of the cluster: %d points, 4 charts, %s ms from the click to the paint", len(g.Points), fmt.Sprintf("%.1f", ms))
}

// TestConsoleMachineGraphYear (a longer run): as TestConsoleGraphYear, a tenant
// user's machine's graphs on its page (GET /api/client/machines/{id}/usage-graphs),
// switched to the year, timed from the click to the four charts drawn again.
func TestConsoleMachineGraphYear(t *testing.T) {
	long(t)
	// Not t.Parallel: the parallel tests wait until this one has ended, so its
	// figures are the page's alone, not those of a browser busy with other tests.
	s := newSite(t)
	id := s.machine("year-1")
	var g struct{ Points []map[string]any }
	s.call("GET", "/api/client/machines/"+id+"/usage-graphs?timeframe=year&tenant_id="+s.mine, s.admin, nil, 200, &g)
	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/machines", "mine@example.test", userPassword)
	run(t, ctx, "the instrument", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(graphTiming).Do(ctx)
		return err
	}))
	const part = `section[aria-labelledby="graphs-part-title"]`
	run(t, ctx, "the machine's graphs",
		chromedp.Navigate(s.srv.Base+"/machines/"+id),
		chromedp.WaitVisible(part+` figure[data-chart="disk"] canvas`, chromedp.ByQuery),
	)
	var ms float64
	run(t, ctx, "the year's graphs", chromedp.Evaluate(`(async () => {
		const before = __ui.canvases();
		const t0 = performance.now();
		const done = __ui.painted(before);
		[...document.querySelectorAll('`+part+` div[aria-label="Timeframe"] button')].find((b) => b.textContent.trim() === 'year').click();
		return (await done) - t0; })()`, &ms, awaitPromise))
	var served int
	var figures []string
	run(t, ctx, "what the page read",
		chromedp.Evaluate(`__ui.served.year ?? -1`, &served),
		chromedp.Evaluate(`[...document.querySelectorAll('`+part+` figure[data-chart]')].map((f) => f.dataset.chart)`, &figures),
	)
	if served != len(g.Points) || served == 0 {
		t.Fatalf("the page read %d points for the year; the API serves %d", served, len(g.Points))
	}
	if strings.Join(figures, ",") != "cpu,mem,net,disk" {
		t.Fatalf("the year's charts: %v", figures)
	}
	t.Logf("year graphs of a machine: %d points, 4 charts, %s ms from the click to the paint", len(g.Points), fmt.Sprintf("%.1f", ms))
}
