package pvefake

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestSnapshots: Proxmox's snapshot calls as qemu-server answers them: reserved and
// malformed names refused at once, the rest checked in the task; vmstate only for a
// running VM; the list's "current" entry; a rollback's state; a delete re-parents.
func TestSnapshots(t *testing.T) {
	s := New(Config{TaskPolls: -1})
	defer s.Close()
	c := newClient(t, s)
	id, _ := s.AddVM(VMSpec{Status: "running", Cores: 2})
	base := "/nodes/pve1/qemu/100/snapshot"
	snap := func(name string, vmstate string) string {
		t.Helper()
		code, data, msg := c.do("POST", base, url.Values{"snapname": {name}, "vmstate": {vmstate}, "description": {"d " + name}})
		if code != 200 {
			t.Fatalf("snapshot %s: got %d %q", name, code, msg)
		}
		return c.wait("pve1", data)
	}
	type entry struct {
		Name, Description, Parent string
		Vmstate                   *int
		Snaptime                  *int64
		Running                   *int
	}
	list := func() map[string]entry {
		t.Helper()
		code, data, msg := c.do("GET", base, nil)
		if code != 200 {
			t.Fatalf("list: got %d %q", code, msg)
		}
		var es []entry
		if err := json.Unmarshal(data, &es); err != nil {
			t.Fatal(err)
		}
		out := map[string]entry{}
		for _, e := range es {
			out[e.Name] = e
		}
		return out
	}
	if cur, ok := list()["current"]; !ok || cur.Description != "You are here!" || cur.Parent != "" || cur.Running == nil || *cur.Running != 1 {
		t.Errorf("an empty list: got %+v; want only current, running, no parent", list())
	}
	for name, want := range map[string]int{"current": 500, "Pending": 500, "1st": 400, strings.Repeat("a", 41): 400} {
		code, _, msg := c.do("POST", base, url.Values{"snapname": {name}})
		if code != want || (want == 500 && !strings.Contains(msg, "reserved name")) {
			t.Errorf("snapshot %q: got %d %q; want %d", name, code, msg, want)
		}
	}
	if exit := snap("one", "1"); exit != "OK" {
		t.Fatalf("snapshot one: %s", exit)
	}
	if exit := snap("one", "0"); exit != "snapshot name 'one' already used" {
		t.Errorf("the same name again: got exit %q", exit)
	}
	s.SetVMStatus(id, "stopped")
	if exit := snap("two", "1"); exit != "OK" {
		t.Fatalf("snapshot two: %s", exit)
	}
	l := list()
	if e := l["one"]; e.Vmstate == nil || *e.Vmstate != 1 || e.Parent != "" || e.Snaptime == nil || e.Description != "d one" {
		t.Errorf("one: got %+v; want vmstate 1, no parent, a snaptime", e)
	}
	if e := l["two"]; e.Vmstate == nil || *e.Vmstate != 0 || e.Parent != "one" {
		t.Errorf("two (of a stopped VM, vmstate asked): got %+v; want vmstate 0, parent one", e)
	}
	if e := l["current"]; e.Parent != "two" || *e.Running != 0 {
		t.Errorf("current: got %+v; want parent two, not running", e)
	}

	code, data, _ := c.do("POST", base+"/one/rollback", url.Values{})
	if exit := c.wait("pve1", data); code != 200 || exit != "OK" {
		t.Fatalf("rollback: %d %s", code, exit)
	}
	if _, st, _, _ := s.VM(id); st != "running" {
		t.Errorf("after a rollback to a snapshot with memory: got %s; want running", st)
	}
	code, data, _ = c.do("POST", base+"/nope/rollback", url.Values{})
	if exit := c.wait("pve1", data); code != 200 || exit != "snapshot 'nope' does not exist" {
		t.Errorf("rollback to an unknown snapshot: got %d %q", code, exit)
	}
	s.SetLock(id, "backup")
	code, data, _ = c.do("DELETE", base+"/one", nil)
	if exit := c.wait("pve1", data); code != 200 || exit != "VM is locked (backup)" {
		t.Errorf("delete while locked: got %d %q", code, exit)
	}
	s.SetLock(id, "")
	code, data, _ = c.do("DELETE", base+"/one", nil)
	if exit := c.wait("pve1", data); code != 200 || exit != "OK" {
		t.Fatalf("delete: %d %s", code, exit)
	}
	if names, parent := s.Snapshots(id); !reflect.DeepEqual(names, []string{"two"}) || parent != "" {
		t.Errorf("after deleting one: got %v at %q; want [two] at none (one's parent)", names, parent)
	}
	if e := list()["two"]; e.Parent != "" {
		t.Errorf("two after its parent was deleted: got parent %q; want none", e.Parent)
	}
	if code, _, _ := c.do("POST", base, url.Values{"snapname": {"x1"}, "memory": {"1"}}); code != 400 {
		t.Errorf("an undeclared parameter: got %d; want 400", code)
	}
}
