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

// ipPool hands out addresses of the sim's 10.0.0.0/16: lowest free first, from 10.0.0.2
// (10.0.0.1 being the gateway) to 10.0.255.254.
type ipPool struct {
	used map[uint32]bool
	hint uint32 // lowest address that may be free
}

const (
	poolFirst uint32 = 10<<24 | 2
	poolLast  uint32 = 10<<24 | 0xfffe
)

func newIPPool() ipPool { return ipPool{used: make(map[uint32]bool), hint: poolFirst} }

// take returns the lowest free address, or false when the pool is exhausted.
func (p *ipPool) take() (string, bool) {
	for a := p.hint; a <= poolLast; a++ {
		if !p.used[a] {
			p.used[a] = true
			p.hint = a + 1
			return ipString(a), true
		}
	}
	return "", false
}

// mark claims an address given from outside (AddMachine, a restore). It reports false
// when the address is in the pool and already taken; addresses outside the pool are not
// the pool's business and always pass.
func (p *ipPool) mark(s string) bool {
	a, ok := poolAddr(s)
	if !ok {
		return true
	}
	if p.used[a] {
		return false
	}
	p.used[a] = true
	return true
}

// release frees an address for reuse.
func (p *ipPool) release(s string) {
	if a, ok := poolAddr(s); ok {
		delete(p.used, a)
		p.hint = min(p.hint, a)
	}
}

func poolAddr(s string) (uint32, bool) {
	ip, err := netip.ParseAddr(s)
	if err != nil || !ip.Is4() {
		return 0, false
	}
	b := ip.As4()
	a := binary.BigEndian.Uint32(b[:])
	return a, a >= poolFirst && a <= poolLast
}

func ipString(a uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], a)
	return netip.AddrFrom4(b).String()
}
