package sim

import (
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
)

// Tags keep the seeded streams apart: the same seed must not give a machine's MAC and
// its CPU noise the same bits.
const (
	tagMAC uint64 = iota + 1
	tagDemo
	tagProfile
	tagNoise1
	tagNoise30
	tagNoise360
	tagDay
	tagBackup
)

// mix hashes its inputs into 64 well-mixed bits (splitmix64 finaliser over a running
// state). Everything "random" in the usage model is mix of (seed, entity, time), so a
// value depends only on what it describes, never on call order.
func mix(vals ...uint64) uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, v := range vals {
		h = fmix(h ^ (v + 0x9e3779b97f4a7c15 + h<<6 + h>>2))
	}
	return h
}

func fmix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

// unit maps hash bits to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// sym maps hash bits to [-1, 1).
func sym(h uint64) float64 { return 2*unit(h) - 1 }

// newRand is a seeded generator for one purpose (tag), for sequences where call order
// is part of the scenario anyway (demo machines, random failures).
func newRand(seed, tag uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, tag)) }

// ipPool hands out the machines' addresses, lowest free first, from the documentation
// ranges (RFC 5737, RFC 3849), which no real host uses: a simulated machine's address
// can never be someone's server, and a health check of one never leaves the simulator
// (see probe.go). IPv4 first, .2 to .254 of 192.0.2.0/24, then 198.51.100.0/24, then
// 203.0.113.0/24 (.1 being each range's gateway); past those 759, IPv6 from
// 2001:db8::2 on. An address is held as its index in that order.
type ipPool struct {
	used map[uint64]bool
	hint uint64 // lowest index that may be free
}

// v4Ranges are the /24 documentation ranges, in the order addresses are handed out.
var v4Ranges = [...][3]byte{{192, 0, 2}, {198, 51, 100}, {203, 0, 113}}

const (
	v4PerRange = 253 // .2 .. .254
	v4Count    = uint64(len(v4Ranges)) * v4PerRange
	// poolSize bounds the IPv6 part to 2^32 addresses, far more than any test makes.
	poolSize = v4Count + 1<<32
)

// v6Prefix is 2001:db8::/32.
var v6Prefix = netip.MustParsePrefix("2001:db8::/32")

func newIPPool() ipPool { return ipPool{used: make(map[uint64]bool)} }

// take returns the lowest free address, or false when the pool is exhausted.
func (p *ipPool) take() (string, bool) {
	for i := p.hint; i < poolSize; i++ {
		if !p.used[i] {
			p.used[i] = true
			p.hint = i + 1
			return poolAddr(i).String(), true
		}
	}
	return "", false
}

// takeAt claims the address at index i when it is free, else the lowest free one.
func (p *ipPool) takeAt(i uint64) (string, bool) {
	if i < poolSize && !p.used[i] {
		p.used[i] = true
		return poolAddr(i).String(), true
	}
	return p.take()
}

// mark claims an address given from outside (AddMachine, a restore). It reports false
// when the address is in the pool and already taken; addresses outside the pool are not
// the pool's business and always pass.
func (p *ipPool) mark(s string) bool {
	i, ok := poolIndex(s)
	if !ok {
		return true
	}
	if p.used[i] {
		return false
	}
	p.used[i] = true
	return true
}

// release frees an address for reuse.
func (p *ipPool) release(s string) {
	if i, ok := poolIndex(s); ok {
		delete(p.used, i)
		p.hint = min(p.hint, i)
	}
}

// poolAddr is the address at index i of the pool.
func poolAddr(i uint64) netip.Addr {
	if i < v4Count {
		r := v4Ranges[i/v4PerRange]
		return netip.AddrFrom4([4]byte{r[0], r[1], r[2], byte(2 + i%v4PerRange)})
	}
	b := v6Prefix.Addr().As16()
	binary.BigEndian.PutUint64(b[8:], i-v4Count+2)
	return netip.AddrFrom16(b)
}

// poolIndex is the index of an address of the pool, or false for any other address.
func poolIndex(s string) (uint64, bool) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return 0, false
	}
	a = a.Unmap()
	if a.Is4() {
		b := a.As4()
		for r, rg := range v4Ranges {
			if b[0] == rg[0] && b[1] == rg[1] && b[2] == rg[2] && b[3] >= 2 && b[3] <= 254 {
				return uint64(r)*v4PerRange + uint64(b[3]-2), true
			}
		}
		return 0, false
	}
	b := a.As16()
	if binary.BigEndian.Uint64(b[:8]) != 0x2001_0db8_0000_0000 { // 2001:db8::/64 only
		return 0, false
	}
	n := binary.BigEndian.Uint64(b[8:])
	if n < 2 || n-2 >= poolSize-v4Count {
		return 0, false
	}
	return v4Count + n - 2, true
}

// ownsAddr reports whether an address lies in the ranges the simulator hands out
// (whole: the gateways and unassigned addresses too). Nothing real answers there, so
// the simulator answers for all of them.
func ownsAddr(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is4() {
		b := a.As4()
		for _, rg := range v4Ranges {
			if b[0] == rg[0] && b[1] == rg[1] && b[2] == rg[2] {
				return true
			}
		}
		return false
	}
	return v6Prefix.Contains(a)
}
