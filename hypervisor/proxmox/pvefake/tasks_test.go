package pvefake

import (
	"encoding/json"
	"net/url"
	"testing"
)

// activeTasks lists a node's tasks not yet stopped for one vmid, as a follower does.
func (c *client) activeTasks(node, vmid string) []map[string]any {
	c.t.Helper()
	code, data, msg := c.do("GET", "/nodes/"+node+"/tasks", url.Values{"source": {"active"}, "vmid": {vmid}})
	if code != 200 {
		c.t.Fatalf("GET /nodes/%s/tasks: %d %s", node, code, msg)
	}
	var list []map[string]any
	if err := json.Unmarshal(data, &list); err != nil {
		c.t.Fatalf("decode %s: %v", data, err)
	}
	return list
}

// TestNodeTasksListsActiveTasks: a held task is listed as active on its node, for its
// vmid only, however often it is listed; once released, listing it advances it like a
// status poll until it stops, applies its effect and leaves the active list (and shows
// in the archive with its exit status).
func TestNodeTasksListsActiveTasks(t *testing.T) {
	s := New(Config{TaskPolls: 3})
	defer s.Close()
	c := newClient(t, s)
	if _, err := s.AddVM(VMSpec{VMID: 100, Node: "pve1", Status: "stopped"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddVM(VMSpec{VMID: 101, Node: "pve1", Status: "stopped"}); err != nil {
		t.Fatal(err)
	}
	if got := c.activeTasks("pve1", "100"); len(got) != 0 {
		t.Fatalf("got %v; want no active task before any write", got)
	}
	release := s.HoldTasks()
	code, data, msg := c.do("POST", "/nodes/pve1/qemu/100/status/start", nil)
	if code != 200 {
		t.Fatalf("start: %d %s", code, msg)
	}
	var upid string
	if err := json.Unmarshal(data, &upid); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		got := c.activeTasks("pve1", "100")
		if len(got) != 1 || got[0]["upid"] != upid || got[0]["type"] != "qmstart" || got[0]["id"] != "100" {
			t.Fatalf("got %v; want the held qmstart task of 100 (%s)", got, upid)
		}
		if _, ok := got[0]["status"]; ok {
			t.Fatalf("got %v; want no status on a running task, as Proxmox lists them", got[0])
		}
	}
	if got := c.activeTasks("pve1", "101"); len(got) != 0 {
		t.Fatalf("got %v; want another vmid's list empty", got)
	}
	if got := c.activeTasks("pve2", "100"); len(got) != 0 {
		t.Fatalf("got %v; want another node's list empty", got)
	}
	if _, status, _, _ := s.VM(100); status != "stopped" {
		t.Fatalf("got %s; want the VM untouched while its task is held", status)
	}
	release()
	release() // a second call does nothing
	lists := 0
	for len(c.activeTasks("pve1", "100")) > 0 {
		if lists++; lists > 10 {
			t.Fatal("the released task is still active after 10 listings; want it stopped after TaskPolls")
		}
	}
	if _, status, _, _ := s.VM(100); status != "running" {
		t.Fatalf("got %s; want the VM started once its task stopped", status)
	}
	code, data, msg = c.do("GET", "/nodes/pve1/tasks", url.Values{"vmid": {"100"}})
	if code != 200 {
		t.Fatalf("archive: %d %s", code, msg)
	}
	var archive []map[string]any
	if err := json.Unmarshal(data, &archive); err != nil {
		t.Fatal(err)
	}
	if len(archive) != 1 || archive[0]["upid"] != upid || archive[0]["status"] != "OK" {
		t.Fatalf("got %v; want the stopped task in the archive with status OK", archive)
	}
	if code, _, _ := c.do("GET", "/nodes/pve1/tasks", url.Values{"source": {"running"}}); code != 400 {
		t.Fatalf("source=running: got %d; want 400 as the schema's enum refuses it", code)
	}
	for _, r := range s.Requests() {
		if r.AnswerErrors != nil {
			t.Errorf("%s %s: answer breaks the return schema: %v", r.Method, r.Path, r.AnswerErrors)
		}
	}
}
