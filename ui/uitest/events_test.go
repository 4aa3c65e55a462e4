package uitest

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// streamHook wraps the page's fetch before any of its scripts run (a script the
// browser adds to each document, which the page's policy does not govern): each
// response of /api/events is passed on through a stream the test can break
// (window.dropStream()), new requests of it wait while window.holdStreams is set
// until window.releaseStreams(), and the Last-Event-ID of each is kept in
// window.streamResumes. This is the test's hook on the connection, with no change to
// the server or the page.
const streamHook = `(() => {
	const orig = window.fetch;
	let release = null, held = null, live = [];
	window.streamResumes = [];
	window.holdStreams = false;
	window.releaseStreams = () => { window.holdStreams = false; if (release) release(); };
	window.dropStream = () => { for (const d of live) d(); live = []; };
	window.fetch = async (input, init) => {
		if (!String(input).endsWith('/api/events')) return orig(input, init);
		if (window.holdStreams) { held ||= new Promise((r) => { release = r; }); await held; held = null; }
		window.streamResumes.push((init && init.headers && init.headers['Last-Event-ID']) || '');
		const res = await orig(input, init);
		if (!res.ok) return res;
		const reader = res.body.getReader();
		const body = new ReadableStream({
			start(c) { live.push(() => { c.error(new TypeError('the test dropped the stream')); reader.cancel(); }); },
			async pull(c) { const { value, done } = await reader.read(); if (done) c.close(); else c.enqueue(value); },
		});
		return new Response(body, { status: res.status, headers: res.headers });
	};
})()`

// TestConsoleEventsResume: the machine list is live from the event stream; the
// stream's connection drops (the test breaks it and holds the page's reconnect), a
// machine is created meanwhile, and once the page reconnects it resumes the stream
// with Last-Event-ID and the machine joins the list from the events it missed,
// without a reload.
func TestConsoleEventsResume(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := tab(t)
	run(t, ctx, "hook the stream", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(streamHook).Do(ctx)
		return err
	}))
	signIn(t, ctx, s.srv.Base, "/machines", "mine@example.test", userPassword)
	run(t, ctx, "the list, live",
		chromedp.WaitVisible(`//p[normalize-space(.)="No machines yet."]`),
		chromedp.Evaluate(`window.notReloaded = true`, nil),
		chromedp.Poll(`window.streamResumes.length > 0`, nil),
	)
	// An event seen before the drop gives the page an id to resume from.
	s.machine("before-drop")
	run(t, ctx, "a machine created elsewhere joins the list",
		chromedp.WaitVisible(row("before-drop")+`/td[2]/span[normalize-space(.)="running"]`),
		chromedp.Evaluate(`window.holdStreams = true; window.dropStream()`, nil),
	)
	s.machine("while-away")
	var resumes []string
	run(t, ctx, "not seen while the stream is down",
		chromedp.WaitNotPresent(row("while-away")),
		chromedp.Evaluate(`window.streamResumes`, &resumes),
	)
	if len(resumes) != 1 {
		t.Fatalf("stream requests %q before the reconnect; want the first only", resumes)
	}
	run(t, ctx, "the page reconnects: the stream resumes and the missed events apply",
		chromedp.Evaluate(`window.releaseStreams()`, nil),
		chromedp.WaitVisible(row("while-away")+`/td[2]/span[normalize-space(.)="running"]`),
		chromedp.Evaluate(`window.streamResumes`, &resumes),
	)
	if len(resumes) != 2 || resumes[0] != "" || resumes[1] == "" {
		t.Fatalf("the stream's requests sent Last-Event-ID %q; want none, then a resume", resumes)
	}
	var notReloaded bool
	run(t, ctx, "no reload", chromedp.Evaluate(`window.notReloaded === true`, &notReloaded))
	if !notReloaded {
		t.Fatal("the page was reloaded")
	}
}
