package isos

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// library is the ISO library over a store of its own, on the simulated cluster, with
// the machines below it; maxBytes bounds what it fetches.
type library struct {
	*ISOs
	ms    *machines.Services
	ev    *events.Events
	store persistence.Store
	dir   string
}

func newLibrary(t *testing.T, store persistence.Store, dir string, maxBytes int64) *library {
	t.Helper()
	rt := kit.New(store, nil, kit.EntityOptions{})
	ev := events.New()
	al := alerts.Start(alerts.Deps{Runtime: rt, Events: ev})
	d := sim.New(sim.Config{OpDelay: -1})
	ms := machines.Start(machines.Deps{Runtime: rt, Driver: d, Events: ev, Alerts: al,
		TenantExists: func(context.Context, string) error { return nil }})
	l := &library{ISOs: New(Deps{Runtime: rt, Driver: d, Machines: ms.Machines, Tasks: ms.Tasks, Events: ev, Dir: dir, MaxBytes: maxBytes}),
		ms: ms, ev: ev, store: store, dir: dir}
	t.Cleanup(func() {
		l.Stop()
		ms.Machines.Stop()
		rt.Shutdown()
		ev.Close()
	})
	return l
}

func openStore(t *testing.T) persistence.Store {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func serve(t *testing.T, body string) (url, checksum string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) }))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256([]byte(body))
	return srv.URL + "/image.iso", "sha256:" + hex.EncodeToString(sum[:])
}

// add adds an image and waits for its fetch's end.
func (l *library) add(t *testing.T, in NewISO) (ISO, tasks.Task) {
	t.Helper()
	ctx := context.Background()
	a, err := l.Add(ctx, in)
	if err != nil {
		t.Fatalf("Add(%+v): %v", in, err)
	}
	task, err := l.ms.Tasks.Wait(ctx, a.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Get(ctx, a.ISO.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, *task
}

// files lists what the library's directory holds.
func (l *library) files(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(l.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// A fetch is verified and bounded: a good image is ready, kept as its file; one
// whose checksum does not match, or larger than MaxBytes, fails with the reason and
// leaves no file behind, and is not mountable. Another tenant's image is not found.
func TestFetchIsVerifiedAndBounded(t *testing.T) {
	ctx := context.Background()
	l := newLibrary(t, openStore(t), filepath.Join(t.TempDir(), "isos"), 64)
	url, sum := serve(t, strings.Repeat("x", 40))

	good, task := l.add(t, NewISO{Name: "good", URL: url, Checksum: sum})
	if good.Status != StatusReady || task.Status != tasks.TaskSucceeded || good.SizeBytes != 40 {
		t.Fatalf("good: %+v, task %+v", good, task)
	}
	if got := l.files(t); len(got) != 1 || got[0] != good.File {
		t.Fatalf("files after a good fetch: %v; want [%s]", got, good.File)
	}
	// The bus is told the fetch's task as it starts and as it ends (just after the
	// end is durable, which the wait above may see first).
	var told []string
	testwait.Eventually(t, "the fetch's task told twice", func() bool {
		backlog, sub, _ := l.ev.Subscribe(0, nil)
		sub.Close()
		told = told[:0]
		for _, e := range backlog {
			if e.Type == events.EventTask && strings.Contains(string(e.Data), task.ID) {
				told = append(told, string(e.Data))
			}
		}
		return len(told) == 2
	})
	if !strings.Contains(told[0], `"running"`) || !strings.Contains(told[1], `"succeeded"`) {
		t.Fatalf("events of the fetch's task: %v; want running, then succeeded", told)
	}
	bad, task := l.add(t, NewISO{Name: "bad", URL: url, Checksum: "sha512:" + strings.Repeat("ab", 64)})
	if bad.Status != StatusFailed || task.Status != tasks.TaskFailed || bad.Error == nil || !strings.Contains(*bad.Error, "checksum_mismatch") {
		t.Fatalf("bad: %+v, task %+v", bad, task)
	}
	bigURL, bigSum := serve(t, strings.Repeat("y", 65))
	big, _ := l.add(t, NewISO{Name: "big", URL: bigURL, Checksum: bigSum})
	if big.Status != StatusFailed || big.Error == nil || !strings.Contains(*big.Error, "larger than the 64 bytes") {
		t.Fatalf("big: %+v", big)
	}
	if got := l.files(t); len(got) != 1 {
		t.Fatalf("files after failed fetches: %v; want the good one alone", got)
	}
	if _, err := l.Mountable(ctx, bad.ID, nil, false); !errors.Is(err, apierr.ErrInvalidState) {
		t.Fatalf("Mountable(failed): %v; want invalid_state", err)
	}
	tenant := "tenant-a"
	mine, _ := l.add(t, NewISO{Name: "a's", URL: url, Checksum: sum, TenantID: &tenant})
	other := "tenant-b"
	if _, err := l.Mountable(ctx, mine.ID, &other, false); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("another tenant's image: %v; want not found", err)
	}
	if m, err := l.Mountable(ctx, "good", &other, true); err != nil || m.ISOID != good.ID || m.File != good.File {
		t.Fatalf("a public image by name: %+v, %v", m, err)
	}
	if err := l.Delete(ctx, good.ID, nil); err != nil {
		t.Fatal(err)
	}
	if got := l.files(t); len(got) != 1 || got[0] != mine.File {
		t.Fatalf("files after the delete: %v", got)
	}
	if _, err := l.Get(ctx, good.ID, nil); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
	for _, in := range []NewISO{{Name: "", URL: url, Checksum: sum}, {Name: "x", URL: "file:///etc/passwd", Checksum: sum},
		{Name: "x", URL: url, Checksum: "md5:00"}} {
		if _, err := l.Add(ctx, in); !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Errorf("Add(%+v): %v; want invalid_request", in, err)
		}
	}
}

// A fetch the process stopped in the middle of stays pending, and the next start
// fails it and its task with the reason.
func TestStartFailsWhatAStopLeftPending(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	dir := t.TempDir()
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hold)
	first := newLibrary(t, store, dir, 0)
	a, err := first.Add(ctx, NewISO{Name: "slow", URL: srv.URL, Checksum: "sha256:" + strings.Repeat("0", 64)})
	if err != nil {
		t.Fatal(err)
	}
	first.Stop()
	if r, _ := first.Get(ctx, a.ISO.ID, nil); r.Status != StatusPending {
		t.Fatalf("after a stop: %+v; want pending", r)
	}
	second := newLibrary(t, store, dir, 0)
	if err := second.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	r, _ := second.Get(ctx, a.ISO.ID, nil)
	task, _ := second.ms.Tasks.Get(ctx, a.Task.ID, nil)
	if r.Status != StatusFailed || task.Status != tasks.TaskFailed || r.Error == nil || !strings.Contains(*r.Error, "stopped") {
		t.Fatalf("after the next start: %+v, task %+v", r, task)
	}
}

// sharedStore is a store of its own that says it is shared, as a cluster's is.
type sharedStore struct{ persistence.Store }

func (sharedStore) Shared() bool { return true }

// On a shared store, a fetch whose process is gone (a member that died) is failed by
// the others' Settle, while one whose process lives stays pending.
func TestSettleFailsTheFetchesOfProcessesGone(t *testing.T) {
	ctx := context.Background()
	store := sharedStore{openStore(t)}
	dir := t.TempDir()
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hold)
	sum := "sha256:" + strings.Repeat("0", 64)
	dead := newLibrary(t, store, dir, 0)
	a, err := dead.Add(ctx, NewISO{Name: "orphan", URL: srv.URL, Checksum: sum})
	if err != nil {
		t.Fatal(err)
	}
	dead.Stop()
	alive := newLibrary(t, store, dir, 0)
	own, err := alive.Add(ctx, NewISO{Name: "own", URL: srv.URL, Checksum: sum})
	if err != nil {
		t.Fatal(err)
	}
	if err := alive.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	r, _ := alive.Get(ctx, a.ISO.ID, nil)
	task, _ := alive.ms.Tasks.Get(ctx, a.Task.ID, nil)
	if r.Status != StatusFailed || task.Status != tasks.TaskFailed {
		t.Fatalf("the fetch of a process gone: %+v, task %+v; want both failed", r, task)
	}
	if r, _ := alive.Get(ctx, own.ISO.ID, nil); r.Status != StatusPending {
		t.Fatalf("a fetch of a process alive: %+v; want it pending still", r)
	}
}
