// Package netpool holds what the simulator hands out on its machines' networks: the
// pool of IP addresses and the set of MAC addresses in use, where a machine's address
// and its MAC are a bit each. A million simulated machines held them in maps keyed by
// indices and strings: 84 MB of the sim's heap (issue 33), now 2 MB.
package netpool

import (
	"encoding/binary"
	"math/bits"
	"net/netip"
)

// The pool's addresses are the documentation ranges (RFC 5737, RFC 3849), which no real
// host uses: a simulated machine's address can never be someone's server, and a health
// check of one never leaves the simulator. IPv4 first, .2 to .254 of 192.0.2.0/24, then
// 198.51.100.0/24, then 203.0.113.0/24 (.1 being each range's gateway); past those 759,
// IPv6 from 2001:db8::2 on. An address is held as its index in that order.
var v4Ranges = [...][3]byte{{192, 0, 2}, {198, 51, 100}, {203, 0, 113}}

const (
	v4PerRange = 253 // .2 .. .254
	// V4Count is how many IPv4 addresses the pool has: indices below it are IPv4.
	V4Count = uint64(len(v4Ranges)) * v4PerRange
	// Size bounds the IPv6 part to 2^32 addresses, far more than any test makes.
	Size = V4Count + 1<<32
	// denseMax is where the pool's bitmap ends (2 MB of bits); taken indices past it,
	// which only an address given from outside makes, are kept in a map.
	denseMax = 1 << 24
)

// v6Prefix is 2001:db8::/32.
var v6Prefix = netip.MustParsePrefix("2001:db8::/32")

// Pool hands out the machines' addresses, lowest free first. The zero Pool is empty
// and ready.
type Pool struct {
	dense  []uint64            // bit i%64 of word i/64: index i is taken (i < denseMax)
	sparse map[uint64]struct{} // taken indices at or past denseMax
	hint   uint64              // lowest index that may be free
}

// Reserve makes room for n addresses without growing the bitmap on the way.
func (p *Pool) Reserve(n int) {
	words := min((uint64(n)+63)/64, denseMax/64)
	if uint64(cap(p.dense)) < words {
		dense := make([]uint64, len(p.dense), words)
		copy(dense, p.dense)
		p.dense = dense
	}
}

// Taken reports whether the address at index i is taken.
func (p *Pool) Taken(i uint64) bool {
	if i < denseMax {
		w := i / 64
		return w < uint64(len(p.dense)) && p.dense[w]&(1<<(i%64)) != 0
	}
	_, ok := p.sparse[i]
	return ok
}

func (p *Pool) set(i uint64) {
	if i >= denseMax {
		if p.sparse == nil {
			p.sparse = map[uint64]struct{}{}
		}
		p.sparse[i] = struct{}{}
		return
	}
	w := i / 64
	if w >= uint64(len(p.dense)) {
		p.dense = append(p.dense, make([]uint64, w+1-uint64(len(p.dense)))...)
	}
	p.dense[w] |= 1 << (i % 64)
}

func (p *Pool) clear(i uint64) {
	if i >= denseMax {
		delete(p.sparse, i)
		return
	}
	if w := i / 64; w < uint64(len(p.dense)) {
		p.dense[w] &^= 1 << (i % 64)
	}
}

// free answers the lowest free index at or past from.
func (p *Pool) free(from uint64) (uint64, bool) {
	for i := from; i < denseMax; {
		w := i / 64
		if w >= uint64(len(p.dense)) {
			return i, true // past the bitmap's end: nothing there is taken
		}
		// The word's bits from i on that are free.
		if open := ^p.dense[w] &^ (1<<(i%64) - 1); open != 0 {
			return w*64 + uint64(bits.TrailingZeros64(open)), true
		}
		i = (w + 1) * 64
	}
	for i := max(from, denseMax); i < Size; i++ {
		if _, ok := p.sparse[i]; !ok {
			return i, true
		}
	}
	return 0, false
}

// Take returns the lowest free address, or false when the pool is exhausted.
func (p *Pool) Take() (string, bool) {
	i, ok := p.free(p.hint)
	if !ok {
		return "", false
	}
	p.set(i)
	p.hint = i + 1
	return Addr(i).String(), true
}

// TakeAt claims the address at index i when it is free, else the lowest free one.
func (p *Pool) TakeAt(i uint64) (string, bool) {
	if i < Size && !p.Taken(i) {
		p.set(i)
		return Addr(i).String(), true
	}
	return p.Take()
}

// Mark claims an address given from outside (a machine added, a restore). It reports
// false when the address is in the pool and already taken; addresses outside the pool
// are not the pool's business and always pass.
func (p *Pool) Mark(s string) bool {
	i, ok := Index(s)
	if !ok {
		return true
	}
	if p.Taken(i) {
		return false
	}
	p.set(i)
	return true
}

// Release frees an address for reuse.
func (p *Pool) Release(s string) {
	if i, ok := Index(s); ok {
		p.clear(i)
		p.hint = min(p.hint, i)
	}
}

// Addr is the address at index i of the pool.
func Addr(i uint64) netip.Addr {
	if i < V4Count {
		r := v4Ranges[i/v4PerRange]
		return netip.AddrFrom4([4]byte{r[0], r[1], r[2], byte(2 + i%v4PerRange)})
	}
	b := v6Prefix.Addr().As16()
	binary.BigEndian.PutUint64(b[8:], i-V4Count+2)
	return netip.AddrFrom16(b)
}

// Index is the index of an address of the pool, or false for any other address.
func Index(s string) (uint64, bool) {
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
	if n < 2 || n-2 >= Size-V4Count {
		return 0, false
	}
	return V4Count + n - 2, true
}

// Owns reports whether an address lies in the ranges the simulator hands out (whole:
// the gateways and unassigned addresses too). Nothing real answers there, so the
// simulator answers for all of them.
func Owns(a netip.Addr) bool {
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
