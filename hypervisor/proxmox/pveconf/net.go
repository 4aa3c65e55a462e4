package pveconf

import (
	"math"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// NetKeyRE matches network interface keys.
var NetKeyRE = regexp.MustCompile(`^net(\d+)$`)

// netOptionKeys are the options of a netN property string other than the model.
var netOptionKeys = map[string]bool{"bridge": true, "firewall": true, "link_down": true, "macaddr": true,
	"model": true, "mtu": true, "queues": true, "rate": true, "tag": true, "trunks": true}

// Net is a parsed netN value, "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,tag=10,firewall=1,rate=12.5".
// It keeps unknown options in their order, so rewriting a NIC changes only what
// vmplane means to change (MAC, model, mtu, queues... stay).
type Net struct {
	Model string // virtio, e1000, ...
	MAC   string // as written ("" when Proxmox is to pick one)
	opts  []kv
}

// kv is one option of a property string.
type kv struct{ k, v string }

// ParseNet reads a netN value; it does not fail: what it cannot place is kept as an
// option.
func ParseNet(s string) Net {
	var n Net
	for i, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		switch {
		case k == "model":
			n.Model = v
		case k == "macaddr":
			n.MAC = v
		case i == 0 && !netOptionKeys[k]: // the "<model>=<mac>" shorthand
			n.Model, n.MAC = k, v
		default:
			n.opts = append(n.opts, kv{k, v})
		}
	}
	return n
}

// Get is the value of an option, "" when absent.
func (n *Net) Get(k string) string {
	for _, o := range n.opts {
		if o.k == k {
			return o.v
		}
	}
	return ""
}

// Set replaces an option, appends it, or with v == "" removes it.
func (n *Net) Set(k, v string) {
	for i, o := range n.opts {
		if o.k == k {
			if v == "" {
				n.opts = append(n.opts[:i], n.opts[i+1:]...)
			} else {
				n.opts[i].v = v
			}
			return
		}
	}
	if v != "" {
		n.opts = append(n.opts, kv{k, v})
	}
}

// String writes the value back in the netN form, options in their order.
func (n Net) String() string {
	parts := []string{n.Model}
	if n.MAC != "" {
		parts[0] += "=" + n.MAC
	}
	for _, o := range n.opts {
		parts = append(parts, o.k+"="+o.v)
	}
	return strings.Join(parts, ",")
}

// RateMbps converts Proxmox's rate (MB/s, megabytes) to megabits per second.
func RateMbps(mbytes string) int {
	f, err := strconv.ParseFloat(mbytes, 64)
	if err != nil || f <= 0 {
		return 0
	}
	return int(math.Round(f * 8))
}

// RateMBps converts megabits per second to Proxmox's rate in MB/s ("" for unlimited).
func RateMBps(mbps int) string {
	if mbps <= 0 {
		return ""
	}
	return strconv.FormatFloat(float64(mbps)/8, 'f', -1, 64)
}

// NIC is one interface with its index.
type NIC struct {
	Index int    // N of netN
	Key   string // "netN"
	Conf  Net    // its parsed value
}

// NICs lists the VM's interfaces by index.
func (c VM) NICs() []NIC {
	var out []NIC
	for k, v := range c {
		m := NetKeyRE.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		idx, _ := strconv.Atoi(m[1])
		out = append(out, NIC{Index: idx, Key: k, Conf: ParseNet(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// IPs reads the static addresses of ipconfigN ("ip=10.0.0.5/24,gw=10.0.0.1,ip6=...")
// without their prefix length. DHCP and SLAAC addresses are not in the config.
func (c VM) IPs(index int) []string {
	var out []string
	for _, part := range strings.Split(c["ipconfig"+strconv.Itoa(index)], ",") {
		k, v, _ := strings.Cut(part, "=")
		if k != "ip" && k != "ip6" {
			continue
		}
		if p, err := netip.ParsePrefix(v); err == nil {
			out = append(out, p.Addr().String())
		} else if a, err := netip.ParseAddr(v); err == nil {
			out = append(out, a.String())
		}
	}
	return out
}
