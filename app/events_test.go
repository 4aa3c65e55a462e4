package app

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
)

type sseEvent struct {
	ID   uint64
	Type string
	Data string
}

// sseStream is an open GET /api/events.
type sseStream struct {
	res    *http.Response
	events chan sseEvent
}

func (s *testServer) subscribe(tok string, lastID uint64) *sseStream {
	s.t.Helper()
	return s.subscribeQuery(tok, "", lastID)
}

// subscribeQuery opens GET /api/events with a query ("?since=0") and, when lastID is
// set, a Last-Event-ID.
func (s *testServer) subscribeQuery(tok, query string, lastID uint64) *sseStream {
	s.t.Helper()
	hr, _ := http.NewRequest("GET", s.base+"/api/events"+query, nil)
	hr.Header.Set("Authorization", "Bearer "+tok)
	if lastID > 0 {
		hr.Header.Set("Last-Event-ID", strconv.FormatUint(lastID, 10))
	}
	res, err := (&http.Client{}).Do(hr)
	if err != nil {
		s.t.Fatal(err)
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		s.t.Fatalf("got %d %s; want 200 text/event-stream", res.StatusCode, res.Header.Get("Content-Type"))
	}
	st := &sseStream{res: res, events: make(chan sseEvent, 1000)}
	go func() {
		defer close(st.events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Type != "" {
					st.events <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.ID, _ = strconv.ParseUint(line[4:], 10, 64)
			case strings.HasPrefix(line, "event: "):
				ev.Type = line[7:]
			case strings.HasPrefix(line, "data: "):
				ev.Data = line[6:]
			}
		}
	}()
	s.t.Cleanup(func() { res.Body.Close() })
	return st
}

// until reads events until one satisfies ok, and returns every event read.
func (st *sseStream) until(t *testing.T, ok func(sseEvent) bool) []sseEvent {
	t.Helper()
	var seen []sseEvent
	timeout := time.After(15 * time.Second)
	for {
		select {
		case ev, open := <-st.events:
			if !open {
				t.Fatalf("the stream ended after %d events", len(seen))
			}
			seen = append(seen, ev)
			if ok(ev) {
				return seen
			}
		case <-timeout:
			t.Fatalf("no matching event among %d", len(seen))
		}
	}
}

func taskDone(id string) func(sseEvent) bool {
	return func(ev sseEvent) bool {
		if ev.Type != events.EventTask {
			return false
		}
		var task tasks.Task
		return json.Unmarshal([]byte(ev.Data), &task) == nil && task.ID == id && task.Finished()
	}
}

func TestEventStreamResumes(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	m := byStatus(t, s.machines(admin), machines.StatusRunning)
	st := s.subscribe(admin, 0)
	first := s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin})
	seen := st.until(t, taskDone(first.ID))
	sawRunning := false
	for _, ev := range seen {
		if ev.Type == events.EventTask && strings.Contains(ev.Data, first.ID) && strings.Contains(ev.Data, `"status":"running"`) {
			sawRunning = true
		}
	}
	if !sawRunning {
		t.Fatal("got no running event of the task before its end")
	}
	last := seen[len(seen)-1].ID
	st.res.Body.Close()

	// While nobody listens, more happens.
	second := s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: admin})
	resumed := s.subscribe(admin, last)
	got := resumed.until(t, taskDone(second.ID))
	prev := last
	for _, ev := range got {
		if ev.ID <= prev {
			t.Fatalf("got event %d after %d; want increasing ids after Last-Event-ID", ev.ID, prev)
		}
		prev = ev.ID
		if strings.Contains(ev.Data, first.ID) {
			t.Fatalf("got an event of the first task again: %+v", ev)
		}
	}
	if !strings.Contains(got[0].Data, second.ID) && got[0].Type != events.EventMachine {
		t.Fatalf("got %+v first; want the missed events of the stop", got[0])
	}
}

func TestEventStreamIsScoped(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Listener", nil)
	b := s.tenant(admin, "Neighbour", nil)
	st := s.subscribe(a.Token, 0)
	// Another tenant's and the operator's work is not shown.
	s.provision(b.Token, smallMachine)
	s.run(req{method: "POST", path: "/api/virt/vms/" + byStatus(t, s.machines(admin), machines.StatusRunning).ID + "/actions/reboot", token: admin})
	mine := s.provision(a.Token, smallMachine)
	seen := st.until(t, func(ev sseEvent) bool {
		return ev.Type == events.EventMachine && strings.Contains(ev.Data, `"status":"running"`)
	})
	for _, ev := range seen {
		if !strings.Contains(ev.Data, a.ID) {
			t.Fatalf("tenant A got %+v, which is not its own", ev)
		}
	}
	if !strings.Contains(seen[len(seen)-1].Data, mine.ID) {
		t.Fatalf("got %+v; want tenant A's machine", seen[len(seen)-1])
	}
	expect(t, s.do(req{method: "GET", path: "/api/events"}), 401, "unauthorized")
}
