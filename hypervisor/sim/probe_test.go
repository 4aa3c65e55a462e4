package sim

import (
	"context"
	"errors"
	"net/netip"
	"syscall"
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/netpool"
)

// Machines get documentation addresses, lowest free first: the three IPv4 ranges in
// order, then IPv6 from 2001:db8::/32; a freed address is handed out again.
func TestAddressesAreDocumentationRanges(t *testing.T) {
	d, _ := newTest(t, Config{Nodes: 1, NodeMemoryMB: 1 << 30})
	var addrs []string
	for range netpool.V4Count + 2 {
		m, err := d.AddMachine(hypervisor.Machine{MemoryMB: 16}, t0)
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, m.Interfaces[0].IPAddresses[0])
	}
	for i, want := range map[int]string{0: "192.0.2.2", 252: "192.0.2.254", 253: "198.51.100.2", 506: "203.0.113.2",
		758: "203.0.113.254", 759: "2001:db8::2", 760: "2001:db8::3"} {
		if addrs[i] != want {
			t.Errorf("address %d: got %s; want %s", i, addrs[i], want)
		}
	}
	for _, s := range addrs {
		if !netpool.Owns(netip.MustParseAddr(s)) {
			t.Errorf("%s is not in a documentation range", s)
		}
	}
	inv, _ := d.Inventory(bg)
	wantErr(t, "remove", d.RemoveMachine(inv.Machines[300].VMID))
	m, _ := d.AddMachine(hypervisor.Machine{MemoryMB: 16}, t0)
	if got := m.Interfaces[0].IPAddresses[0]; got != addrs[300] {
		t.Errorf("after freeing %s: got %s; want it reused", addrs[300], got)
	}
	for _, s := range []string{"10.0.0.2", "192.0.2.1", "192.0.2.255", "2001:db8:1::2", "fe80::1", "junk"} {
		if _, ok := netpool.Index(s); ok {
			t.Errorf("%s is taken for a pool address", s)
		}
	}
}

// Probes of simulated addresses are answered from the machines' state; other addresses
// are not the simulator's to answer.
func TestProbes(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	ip := m.Interfaces[0].IPAddresses[0]
	ref := hypervisor.Ref{VMID: m.VMID}
	tcp := func(addr string, wantOwned bool, want error) {
		t.Helper()
		owned, err := d.ProbeTCP(bg, addr)
		if owned != wantOwned || !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("ProbeTCP(%s): got %v, %v; want %v, %v", addr, owned, err, wantOwned, want)
		}
	}
	web := func(url string, wantOwned bool, wantStatus int, want error) {
		t.Helper()
		status, owned, err := d.ProbeHTTP(bg, url)
		if owned != wantOwned || status != wantStatus || !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("ProbeHTTP(%s): got %d, %v, %v; want %d, %v, %v", url, status, owned, err, wantStatus, wantOwned, want)
		}
	}
	tcp(ip+":22", true, nil)
	web("http://"+ip+":8080/health", true, 200, nil)
	web("https://"+ip+"/", true, 200, nil)
	tcp("192.0.2.200:22", true, syscall.EHOSTUNREACH) // nobody's
	tcp("127.0.0.1:22", false, nil)
	web("http://example.test/", false, 0, nil)
	web("http://10.0.0.5/", false, 0, nil)

	wantErr(t, "stop", d.Power(bg, ref, hypervisor.ActionStop))
	tcp(ip+":22", true, syscall.ECONNREFUSED)
	web("http://"+ip+"/", true, 0, syscall.ECONNREFUSED)
	if _, err := d.ProbeTCP(bg, ip+":22"); err == nil || err.Error() != "dial tcp "+ip+":22: connect: connection refused" {
		t.Errorf("got %v; want the error a real connect meets", err)
	}
	wantErr(t, "start", d.Power(bg, ref, hypervisor.ActionStart))
	wantErr(t, "node offline", d.SetNodeStatus(m.Node, hypervisor.NodeOffline))
	tcp(ip+":22", true, syscall.EHOSTUNREACH)

	ctx, cancel := context.WithCancel(bg)
	cancel()
	if owned, err := d.ProbeTCP(ctx, ip+":22"); !owned || !errors.Is(err, context.Canceled) {
		t.Errorf("probe with an ended context: got %v, %v; want owned, cancelled", owned, err)
	}
}
