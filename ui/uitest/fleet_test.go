package uitest

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/vmplane/vmplane/app/apptest"
)

// fleetSize is how many machines the operator's list is measured with (issue 32).
const fleetSize = 10000

// timing is the page's instrument, added to every document before its scripts run:
// the long tasks (PerformanceObserver), and __ui.expect(pred), a promise of the
// page's clock (performance.now) once pred holds after a change of the DOM and a frame
// has been drawn (a requestAnimationFrame, then a task after it: the paint).
const timing = `window.__ui = { longTasks: [] };
try {
  new PerformanceObserver((l) => { for (const e of l.getEntries()) __ui.longTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: true });
} catch (e) { __ui.noLongTasks = String(e); }
__ui.expect = (pred) => new Promise((resolve) => {
  let mo = null;
  const check = () => {
    if (!document.body || !pred()) return;
    if (mo) mo.disconnect();
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
    return true;
  };
  if (check()) return;
  mo = new MutationObserver(check);
  mo.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
});
__ui.names = () => [...document.querySelectorAll('table[data-machines] tbody tr td:first-child')].map((td) => td.textContent.trim());
__ui.statuses = () => [...document.querySelectorAll('table[data-machines] tbody tr td:nth-child(2)')].map((td) => td.textContent.trim());
__ui.first = __ui.expect(() => __ui.names().length === 50);`

// fleetMachine is a machine of the operator's list as the API answers it.
type fleetMachine struct{ ID, Name, Status string }

// pages reads n pages of 50 of the operator's machine list through the API, with a
// query of filters.
func (s *site) pages(query string, n int) [][]fleetMachine {
	s.t.Helper()
	var out [][]fleetMachine
	cursor := ""
	for range n {
		q := "/api/resources/machines?limit=50" + query
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		var p struct {
			Items      []fleetMachine
			NextCursor *string `json:"next_cursor"`
		}
		s.call("GET", q, s.admin, nil, 200, &p)
		out = append(out, p.Items)
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	return out
}

// names are the names of machines.
func names(ms []fleetMachine) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// measure runs action (JavaScript) in the page and answers the milliseconds from just
// before it until pred (JavaScript) holds, painted.
func measure(t *testing.T, ctx context.Context, step, pred, action string) float64 {
	t.Helper()
	var ms float64
	run(t, ctx, step, chromedp.Evaluate(fmt.Sprintf(`(async () => { const t0 = performance.now();
		const done = __ui.expect(() => %s); %s; return (await done) - t0; })()`, pred, action), &ms, awaitPromise))
	return ms
}

// TestConsoleFleet (a longer run): the operator's machine list over 10,000 machines,
// measured in the browser with the Performance API: the first paint of the list
// (from the navigation's start: the sign-in's refresh, the chunks, the first page),
// a filter by name, a filter by state, ten pages forward, and a sort. Each is checked
// for the right rows (the API's own pages); the timings and the long tasks are logged,
// never asserted (BENCHMARKS.md has the figures).
func TestConsoleFleet(t *testing.T) {
	long(t)
	// Not t.Parallel: the parallel tests wait until this one has ended, so its
	// figures are the page's alone, not those of a browser busy with other tests.
	cfg := apptest.Config(t.TempDir())
	cfg.SimMachines = fleetSize
	srv, err := apptest.StartConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	s := &site{t: t, srv: srv}
	var login struct{ Token string }
	s.call("POST", "/api/auth/login", "", map[string]any{"email": apptest.AdminEmail, "password": apptest.AdminPassword}, 200, &login)
	s.admin = login.Token
	// The simulated world is seeded when the server attaches it, in the background
	// (the server serves before it is there), and its machines adopted then: wait
	// until they are all counted.
	began := time.Now()
	for {
		var o struct{ Machines struct{ Total int } }
		s.call("GET", "/api/monitoring/overview", s.admin, nil, 200, &o)
		if o.Machines.Total >= fleetSize {
			break
		}
		if time.Since(began) > 5*time.Minute {
			t.Fatalf("%d machines after %v; want %d", o.Machines.Total, time.Since(began), fleetSize)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("%d machines there %v after the start", fleetSize, time.Since(began).Round(time.Millisecond))
	want := s.pages("", 11)
	stopped := s.pages("&status=stopped", 1)[0]
	if len(want) != 11 || len(stopped) == 0 {
		t.Fatalf("the API's pages: %d, %d stopped on the first", len(want), len(stopped))
	}
	// A name from the middle of the fleet, found by the API's exact filter.
	target := want[7][23].Name

	ctx := tab(t)
	signIn(t, ctx, s.srv.Base, "/admin/dashboard", apptest.AdminEmail, apptest.AdminPassword)
	run(t, ctx, "the instrument", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(timing).Do(ctx)
		return err
	}))
	var first float64
	var shown []string
	run(t, ctx, "the list's first paint",
		chromedp.Navigate(s.srv.Base+"/admin/machines"),
		chromedp.Evaluate(`__ui.first`, &first, awaitPromise),
		chromedp.Evaluate(`__ui.names()`, &shown),
	)
	if strings.Join(shown, ",") != strings.Join(names(want[0]), ",") {
		t.Fatalf("the first page shows %v; want %v", shown, names(want[0]))
	}
	var rendered int
	run(t, ctx, "only a page in the DOM", chromedp.Evaluate(`document.querySelectorAll('table[data-machines] tbody tr').length`, &rendered))
	if rendered != 50 {
		t.Fatalf("%d rows in the page; want 50", rendered)
	}

	byName := measure(t, ctx, "a filter by name",
		fmt.Sprintf(`__ui.names().join() === %q`, target),
		fmt.Sprintf(`document.querySelector('form[aria-label="Filter machines"] input[name=name]').value = %q;
			document.querySelector('form[aria-label="Filter machines"]').requestSubmit()`, target))

	byState := measure(t, ctx, "a filter by state",
		fmt.Sprintf(`__ui.names().join() === %q && __ui.statuses().every((s) => s === 'stopped')`, strings.Join(names(stopped), ",")),
		`document.querySelector('form[aria-label="Filter machines"] input[name=name]').value = "";
			const f = document.querySelector('form[aria-label="Filter machines"]');
			f.querySelector('select[name=status]').value = "stopped"; f.requestSubmit()`)

	back := measure(t, ctx, "every state again",
		fmt.Sprintf(`__ui.names().join() === %q`, strings.Join(names(want[0]), ",")),
		`const f = document.querySelector('form[aria-label="Filter machines"]');
			f.querySelector('select[name=status]').value = ""; f.requestSubmit()`)

	var pagesMS []float64
	for i := 1; i <= 10; i++ {
		ms := measure(t, ctx, fmt.Sprintf("page %d", i+1),
			fmt.Sprintf(`__ui.names().join() === %q`, strings.Join(names(want[i]), ",")),
			`[...document.querySelectorAll('nav[aria-label="Pages"] button')].find((b) => b.textContent.trim() === 'Next').click()`)
		pagesMS = append(pagesMS, ms)
	}

	statuses := make([]string, len(want[10]))
	for i, m := range want[10] {
		statuses[i] = m.Status
	}
	sort.Strings(statuses)
	byStatus := measure(t, ctx, "the page sorted by state",
		fmt.Sprintf(`__ui.statuses().join() === %q`, strings.Join(statuses, ",")),
		`document.querySelector('button[data-sort=status]').click()`)
	sorted := names(want[10])
	sort.Slice(sorted, func(i, j int) bool { return naturalLess(sorted[j], sorted[i]) })
	run(t, ctx, "the page sorted by name",
		chromedp.Click(`button[data-sort=name]`, chromedp.ByQuery),
		chromedp.WaitVisible(`th[aria-sort=ascending] button[data-sort=name]`, chromedp.ByQuery))
	byNameDown := measure(t, ctx, "the page sorted by name, descending",
		fmt.Sprintf(`__ui.names().join() === %q`, strings.Join(sorted, ",")),
		`document.querySelector('button[data-sort=name]').click()`)

	var lt struct {
		Count int
		Total float64
		Max   float64
		None  string
	}
	run(t, ctx, "the long tasks", chromedp.Evaluate(`({ count: __ui.longTasks.length, total: __ui.longTasks.reduce((a, b) => a + b, 0),
		max: Math.max(0, ...__ui.longTasks), none: __ui.noLongTasks || '' })`, &lt))
	var total float64
	for _, ms := range pagesMS {
		total += ms
	}
	t.Logf("%d machines, pages of 50: first paint of the list %.0f ms from the navigation's start", fleetSize, first)
	t.Logf("filter by name %.0f ms, by state %.0f ms, every state again %.0f ms", byName, byState, back)
	t.Logf("ten pages forward: %.0f ms in all, %.0f ms each on average (%s)", total, total/10, fmtMS(pagesMS))
	t.Logf("the page sorted by state %.0f ms, by name descending %.0f ms", byStatus, byNameDown)
	t.Logf("long tasks (over 50 ms) since the list's navigation: %d, %.0f ms in all, the longest %.0f ms%s", lt.Count, lt.Total, lt.Max, lt.None)
}

// fmtMS lists timings in milliseconds.
func fmtMS(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, ", ") + " ms"
}

// naturalLess orders names as the page's sort does (localeCompare with numeric: the
// digits in a name compare as numbers), for the sim's names vm-<vmid>: their letters
// before the first digit, then that number.
func naturalLess(a, b string) bool {
	pa, na := splitNumber(a)
	pb, nb := splitNumber(b)
	if pa != pb {
		return pa < pb
	}
	return na < nb
}

func splitNumber(s string) (string, int) {
	i := strings.IndexAny(s, "0123456789")
	if i < 0 {
		return s, 0
	}
	n := 0
	for _, c := range s[i:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return s[:i], n
}
