package sim

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
	"github.com/vmplane/vmplane/hypervisor/sim/netpool"
)

// Interface guard: health checks of simulated machines are answered here.
var _ hypervisor.Prober = (*Driver)(nil)

// ProbeTCP answers a TCP connect to an address of the simulator's ranges (see ipPool)
// from the machine that holds it: a running machine on an online node accepts every
// port; a stopped or suspended one refuses (ECONNREFUSED, at once, as a host whose
// guest is not listening would); an address no machine holds, or whose machine's node
// is offline, is unreachable (EHOSTUNREACH). Any other address is not the simulator's
// (owned false). Nothing touches the network.
func (d *Driver) ProbeTCP(ctx context.Context, addr string) (owned bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, nil
	}
	return d.probe(ctx, host, port)
}

// ProbeHTTP answers an HTTP GET of a URL whose host is an address of the simulator's
// ranges: 200 from a running machine (every simulated machine serves every path), else
// the connect error ProbeTCP gives. Host names and other addresses are not the
// simulator's (owned false).
func (d *Driver) ProbeHTTP(ctx context.Context, target string) (status int, owned bool, err error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return 0, false, nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	owned, err = d.probe(ctx, u.Hostname(), port)
	if !owned || err != nil {
		return 0, owned, err
	}
	return http.StatusOK, true, nil
}

// probe finds the machine behind host and says whether it would accept a connection.
func (d *Driver) probe(ctx context.Context, host, port string) (bool, error) {
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.Zone() != "" || !netpool.Owns(addr) {
		return false, nil
	}
	addr = addr.Unmap()
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	refuse := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Addr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(addr, uint16(p))),
			Err: os.NewSyscallError("connect", errno)}
	}
	d.catchUp()
	d.mu.Lock()
	defer d.mu.Unlock()
	node, state, found := d.machineAtLocked(addr)
	switch {
	case !found:
		return true, refuse(syscall.EHOSTUNREACH)
	case d.nodeLocked(node) == nil || d.nodeLocked(node).Status != hypervisor.NodeOnline:
		return true, refuse(syscall.EHOSTUNREACH)
	case state != hypervisor.StateRunning:
		return true, refuse(syscall.ECONNREFUSED)
	}
	return true, nil
}

// machineAtLocked finds the node and state of the machine an interface of which holds addr.
func (d *Driver) machineAtLocked(addr netip.Addr) (node string, state hypervisor.State, found bool) {
	d.machines.Each(func(m *fleet.Machine) {
		if found {
			return // Each has no early stop: the rest only costs the walk
		}
		for _, nic := range m.Interfaces {
			for _, s := range nic.IPAddresses {
				s, _, _ = strings.Cut(s, "/")
				if a, err := netip.ParseAddr(s); err == nil && a.Unmap() == addr {
					node, state, found = m.Node, m.State, true
				}
			}
		}
	})
	return node, state, found
}
