package pvefake

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestIPSets walks a VM's IP set API as pve-firewall answers it: names checked,
// entries normalised and unique, an unknown set a 500, a non-empty set kept unless
// forced, an entry removed only by its stored text.
func TestIPSets(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	c := newClient(t, s)
	s.AddVM(VMSpec{})
	base := "/nodes/pve1/qemu/100/firewall/ipset"
	set := base + "/ipfilter-net0"
	entries := func() []string {
		t.Helper()
		got, _ := s.IPSet(100, "ipfilter-net0")
		return got
	}
	want := func(what string, code int, msg string, wantCode int, frag string) {
		t.Helper()
		if code != wantCode || !strings.Contains(msg, frag) {
			t.Errorf("%s: got %d %q; want %d containing %q", what, code, msg, wantCode, frag)
		}
	}

	code, _, msg := c.do("GET", set, nil)
	want("entries of a set that does not exist", code, msg, 500, "no such IPSet 'ipfilter-net0'")
	code, _, msg = c.do("POST", set, url.Values{"cidr": {"192.0.2.5"}})
	want("add to a set that does not exist", code, msg, 500, "no such IPSet")
	for _, bad := range []string{"x", "9lives", "has space", "dot.ted", strings.Repeat("a", 65)} {
		code, _, msg = c.do("POST", base, url.Values{"name": {bad}})
		want("create "+bad, code, msg, 400, "Parameter verification failed")
	}
	code, _, msg = c.do("POST", base, url.Values{"name": {"ipfilter-net0"}, "comment": {"vmplane"}})
	want("create", code, msg, 200, "")
	code, _, msg = c.do("POST", base, url.Values{"name": {"ipfilter-net0"}})
	want("create twice", code, msg, 400, "Parameter verification failed")

	_, data, _ := c.do("GET", base, nil)
	var sets []struct{ Name, Comment, Digest string }
	json.Unmarshal(data, &sets)
	if len(sets) != 1 || sets[0].Name != "ipfilter-net0" || sets[0].Comment != "vmplane" || sets[0].Digest == "" {
		t.Errorf("set list: got %+v; want ipfilter-net0 with its comment and a digest", sets)
	}

	for _, add := range []string{"192.0.2.5/32", "198.51.100.77/24", "2001:db8:0:1::5/64", "2001:db8::9/128"} {
		code, _, msg = c.do("POST", set, url.Values{"cidr": {add}, "comment": {"test"}})
		want("add "+add, code, msg, 200, "")
	}
	// Newest first; host bits cleared, full-length prefixes dropped (clean_cidr and
	// parse_ip_or_cidr).
	if got, w := entries(), []string{"2001:db8::9", "2001:db8:0:1::/64", "198.51.100.0/24", "192.0.2.5"}; !reflect.DeepEqual(got, w) {
		t.Errorf("entries: got %v; want %v", got, w)
	}
	for _, tc := range []struct{ cidr, frag string }{
		{"192.0.2.5", ""},               // the same address again
		{"198.51.100.9/24", ""},         // the same network after cleaning
		{"300.1.2.3", ""},               // no address
		{"192.0.2.0/33", ""},            // no prefix
		{"0.0.0.0/0", ""},               // a zero prefix
		{"fe80::1%eth0", ""},            // a zone
		{"not an address!", ""},         // nothing
		{"192.0.2.5,192.0.2.6", ""},     // a list is no entry
		{"2001:db8::/64,1.2.3.4/8", ""}, // nor a mixed one
	} {
		code, _, msg = c.do("POST", set, url.Values{"cidr": {tc.cidr}})
		want("add "+tc.cidr, code, msg, 400, "Parameter verification failed")
	}
	code, _, msg = c.do("POST", set, url.Values{"cidr": {"office"}})
	want("add an alias the cluster lacks", code, msg, 500, "no such alias 'office'")

	// An entry is named by its stored text: the /32 form removes nothing.
	code, _, msg = c.do("DELETE", set+"/"+url.PathEscape("192.0.2.5/32"), nil)
	want("delete by the /32 form", code, msg, 200, "")
	if got := entries(); len(got) != 4 {
		t.Errorf("after deleting 192.0.2.5/32: got %v; want all four still there", got)
	}
	_, data, _ = c.do("GET", set, nil)
	var list []struct{ Cidr, Digest string }
	json.Unmarshal(data, &list)
	code, _, msg = c.do("DELETE", set+"/192.0.2.5", url.Values{"digest": {list[0].Digest}})
	want("delete 192.0.2.5", code, msg, 200, "")
	code, _, msg = c.do("DELETE", set+"/"+url.PathEscape("198.51.100.0/24"), url.Values{"digest": {list[0].Digest}})
	want("delete with a stale digest", code, msg, 500, "detected modified configuration")
	// pve-firewall takes the rest of the path as {cidr}: an unescaped slash works too.
	code, _, msg = c.do("DELETE", set+"/198.51.100.0/24", nil)
	want("delete an unescaped network", code, msg, 200, "")
	if got, w := entries(), []string{"2001:db8::9", "2001:db8:0:1::/64"}; !reflect.DeepEqual(got, w) {
		t.Errorf("after deletes: got %v; want %v", got, w)
	}
	code, _, msg = c.do("GET", set+"/"+url.PathEscape("2001:db8:0:1::/64"), nil)
	want("read one entry", code, msg, 200, "")
	code, _, msg = c.do("GET", set+"/192.0.2.77", nil)
	want("read an entry that is not there", code, msg, 400, "Parameter verification failed")

	code, _, msg = c.do("DELETE", set, nil)
	want("delete a non-empty set", code, msg, 500, "IPSet 'ipfilter-net0' is not empty")
	code, _, msg = c.do("DELETE", set, url.Values{"force": {"1"}})
	want("force-delete", code, msg, 200, "")
	if names := s.IPSets(100); len(names) != 0 {
		t.Errorf("sets after the forced delete: got %v; want none", names)
	}
	code, _, msg = c.do("DELETE", set, nil)
	want("delete a set that does not exist", code, msg, 500, "no such IPSet")
}

// TestIPSetsFollowTheFirewallFile checks that IP sets live in the VM's firewall config
// file as Proxmox keeps it: copied by a clone, archived by vzdump and written over
// the target by a restore, gone with the VM.
func TestIPSetsFollowTheFirewallFile(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	c := newClient(t, s)
	s.AddVM(VMSpec{})
	if err := s.SetIPSet(100, "ipfilter-net0", []string{"192.0.2.5"}); err != nil {
		t.Fatal(err)
	}
	s.SetFirewallOption(100, "ipfilter", "1")

	code, data, msg := c.do("POST", "/nodes/pve1/qemu/100/clone", url.Values{"newid": {"101"}, "full": {"1"}})
	if code != 200 {
		t.Fatalf("clone: %d %s", code, msg)
	}
	c.wait("pve1", data)
	if got, _ := s.IPSet(101, "ipfilter-net0"); !reflect.DeepEqual(got, []string{"192.0.2.5"}) {
		t.Errorf("clone's set: got %v; want the source's", got)
	}

	code, data, msg = c.do("POST", "/nodes/pve1/vzdump", url.Values{"vmid": {"100"}, "storage": {"local"}})
	if code != 200 {
		t.Fatalf("vzdump: %d %s", code, msg)
	}
	c.wait("pve1", data)
	volid := s.Backups()[0]
	s.SetIPSet(100, "ipfilter-net0", []string{"203.0.113.9"})
	s.SetIPSet(100, "extra", []string{"203.0.113.10"})

	// A restore over the VM writes the archived firewall file over its own.
	code, data, msg = c.do("POST", "/nodes/pve1/qemu", url.Values{"vmid": {"100"}, "archive": {volid}, "force": {"1"}})
	if code != 200 {
		t.Fatalf("restore: %d %s", code, msg)
	}
	c.wait("pve1", data)
	if got, _ := s.IPSet(100, "ipfilter-net0"); !reflect.DeepEqual(got, []string{"192.0.2.5"}) {
		t.Errorf("set after the restore: got %v; want the archived one", got)
	}
	if names := s.IPSets(100); !reflect.DeepEqual(names, []string{"ipfilter-net0"}) {
		t.Errorf("sets after the restore: got %v; want the archive's only", names)
	}
	// Into a new vmid as well.
	code, data, msg = c.do("POST", "/nodes/pve1/qemu", url.Values{"vmid": {"150"}, "archive": {volid}, "unique": {"1"}})
	if code != 200 {
		t.Fatalf("restore to 150: %d %s", code, msg)
	}
	c.wait("pve1", data)
	if got, _ := s.IPSet(150, "ipfilter-net0"); !reflect.DeepEqual(got, []string{"192.0.2.5"}) {
		t.Errorf("new vmid's set: got %v; want the archived one", got)
	}
	if got := s.FirewallOptions(150)["ipfilter"]; got != "1" {
		t.Errorf("new vmid's ipfilter: got %q; want 1", got)
	}

	code, data, msg = c.do("DELETE", "/nodes/pve1/qemu/150", nil)
	if code != 200 {
		t.Fatalf("destroy: %d %s", code, msg)
	}
	c.wait("pve1", data)
	if _, ok := s.IPSet(150, "ipfilter-net0"); ok {
		t.Error("the destroyed VM's set is still there")
	}
}

// TestFirewallPolicies: the VM firewall's policy_in and policy_out take Proxmox's
// enum (ACCEPT, REJECT, DROP) and nothing else, are kept as sent, and answer as
// strings beside the boolean options, which answer as integers.
func TestFirewallPolicies(t *testing.T) {
	s := New(Config{})
	defer s.Close()
	c := newClient(t, s)
	s.AddVM(VMSpec{})
	opts := "/nodes/pve1/qemu/100/firewall/options"
	for _, bad := range []string{"drop", "ALLOW"} {
		if code, _, msg := c.do("PUT", opts, url.Values{"policy_in": {bad}}); code != 400 || !strings.Contains(msg, "Parameter verification failed") {
			t.Errorf("policy_in %q: got %d %q; want 400", bad, code, msg)
		}
	}
	if code, _, msg := c.do("PUT", opts, url.Values{"enable": {"1"}, "policy_in": {"DROP"}, "policy_out": {"REJECT"}}); code != 200 {
		t.Fatalf("set the policies: got %d %q", code, msg)
	}
	if got := s.FirewallOptions(100); got["policy_in"] != "DROP" || got["policy_out"] != "REJECT" || got["enable"] != "1" {
		t.Errorf("options kept: got %v", got)
	}
	_, data, _ := c.do("GET", opts, nil)
	var read map[string]any
	if err := json.Unmarshal(data, &read); err != nil {
		t.Fatal(err)
	}
	if read["policy_in"] != "DROP" || read["policy_out"] != "REJECT" || read["enable"] != float64(1) {
		t.Errorf("options read: got %v", read)
	}
}
