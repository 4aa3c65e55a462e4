package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/client"
)

// TestEventsResume: a stream the server drops is opened again with Last-Event-ID, and
// goes on after the last event yielded, without losing or repeating one.
func TestEventsResume(t *testing.T) {
	t.Parallel()
	var (
		mu      sync.Mutex
		lastIDs []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
		n := len(lastIDs)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch n {
		case 1: // two events, then the connection drops
			fmt.Fprint(w, "retry: 2000\n\n: heartbeat\n\nid: 1\nevent: task.updated\ndata: {\"id\":\"k1\",\n"+
				"data: \"status\":\"running\"}\n\nid: 2\nevent: task.updated\ndata: {\"id\":\"k1\",\"status\":\"succeeded\"}\n\n")
		case 2: // answers from Last-Event-ID on, then waits until the client leaves
			fmt.Fprint(w, "event: gap\ndata: {\"detail\":\"x\"}\n\nid: 3\nevent: machine.deleted\ndata: {\"id\":\"m1\"}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			http.Error(w, "too many connections", http.StatusTeapot)
		}
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []string
	for ev, err := range c.Events(ctx, client.FromNow) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %s", ev.ID, ev.Type, ev.Data))
		if ev.ID == 3 {
			break
		}
	}
	want := []string{
		`1 task.updated {"id":"k1",` + "\n" + `"status":"running"}`,
		`2 task.updated {"id":"k1","status":"succeeded"}`,
		`0 gap {"detail":"x"}`,
		`3 machine.deleted {"id":"m1"}`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got events\n%q\nwant\n%q", got, want)
	}
	if len(lastIDs) != 2 || lastIDs[0] != "" || lastIDs[1] != "2" {
		t.Fatalf("got Last-Event-ID %q; want none, then 2", lastIDs)
	}
}

// TestEventsFromServer: a user's stream from a real server carries its machine's task
// to its end, and a stream opened after an event goes on with the next one.
func TestEventsFromServer(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin := mustClient(t, base, client.WithCredentials(adminEmail, adminPassword))
	if err := admin.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ten, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateUser(ctx, client.UserCreate{Email: "ada@acme.test", Name: "Ada", Role: client.RoleUser,
		Password: "tenant user password", TenantID: ten.ID}); err != nil {
		t.Fatal(err)
	}
	c := mustClient(t, base, client.WithCredentials("ada@acme.test", "tenant user password"))
	var tpl client.Template
	for tp, err := range c.Templates(ctx, client.ListOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		tpl = tp
		break
	}
	_, task, err := c.CreateMachine(ctx, client.MachineSpec{Name: "web", TemplateID: tpl.ID, CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitTask(ctx, task.ID); err != nil {
		t.Fatal(err)
	}

	// The kept backlog (from 0) holds the task's updates up to its end.
	var seen []client.Event
	for ev, err := range c.Events(ctx, 0) {
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, ev)
		if ev.Type != "task.updated" {
			continue
		}
		var tk client.Task
		if err := json.Unmarshal(ev.Data, &tk); err != nil {
			t.Fatalf("task.updated data %s: %v", ev.Data, err)
		}
		if tk.ID == task.ID && tk.Status == client.TaskSucceeded {
			break
		}
	}
	if len(seen) < 2 {
		t.Fatalf("got %d events; want the task's updates", len(seen))
	}
	// After the first event, the stream goes on with the second.
	for ev, err := range c.Events(ctx, int64(seen[0].ID)) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.ID != seen[1].ID || ev.Type != seen[1].Type || string(ev.Data) != string(seen[1].Data) {
			t.Fatalf("after event %d: got %d %s; want %d %s", seen[0].ID, ev.ID, ev.Type, seen[1].ID, seen[1].Type)
		}
		break
	}

	// A stream without a token is refused, and that is final.
	anon := mustClient(t, base)
	n := 0
	for _, err := range anon.Events(ctx, client.FromNow) {
		n++
		if !errors.Is(err, client.ErrUnauthorized) {
			t.Fatalf("events without a token: %v; want unauthorized", err)
		}
	}
	if n != 1 {
		t.Fatalf("events without a token: got %d yields; want the one error", n)
	}
}

// TestWaitTaskByEvent: WaitTask learns the end of the task from the event stream: the
// scripted server's GET /api/tasks/k1 says running for ever, only the stream says done.
func TestWaitTaskByEvent(t *testing.T) {
	t.Parallel()
	const running = `{"id":"k1","type":"machine.start","target_type":"machine","target_id":"m1","tenant_id":null,"status":"running","error":null,"created_at":"2026-01-02T03:04:05Z","started_at":null,"finished_at":null,"result":null}`
	var streams atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/events" {
			w.Write([]byte(running))
			return
		}
		streams.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 7\nevent: task.updated\ndata: "+strings.Replace(strings.Replace(running, `"id":"k1"`, `"id":"other"`, 1), "running", "succeeded", 1)+"\n\n")
		fmt.Fprint(w, "id: 8\nevent: task.updated\ndata: "+strings.Replace(running, "running", "succeeded", 1)+"\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := c.WaitTask(ctx, "k1")
	if err != nil || got.ID != "k1" || got.Status != client.TaskSucceeded {
		t.Fatalf("got %+v, %v; want k1 succeeded, from its event", got, err)
	}
	if streams.Load() != 1 {
		t.Fatalf("opened %d streams; want 1", streams.Load())
	}
}
