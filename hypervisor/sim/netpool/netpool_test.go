package netpool

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
)

// The pool behaves as the map of taken indices it replaced: random takes, claims at an
// index, marks and releases, across the bitmap's word edges and past its end, answer
// what the map would.
func TestPoolIsTheMapItReplaced(t *testing.T) {
	var p Pool
	p.Reserve(100)
	ref := refPool{used: map[uint64]bool{}}
	rng := rand.New(rand.NewPCG(1, 2))
	// Indices near the edges that matter: words, the IPv4/IPv6 boundary, the bitmap's end.
	edges := []uint64{0, 1, 62, 63, 64, 65, 127, 128, V4Count - 1, V4Count, V4Count + 1,
		denseMax - 65, denseMax - 64, denseMax - 1, denseMax, denseMax + 1}
	pick := func() uint64 {
		if rng.IntN(3) == 0 {
			return edges[rng.IntN(len(edges))]
		}
		return uint64(rng.IntN(3000))
	}
	for step := range 20000 {
		i := pick()
		s := Addr(i).String()
		var got, want string
		var gotOK, wantOK bool
		switch op := rng.IntN(5); op {
		case 0:
			got, gotOK = p.Take()
			want, wantOK = ref.take()
		case 1:
			got, gotOK = p.TakeAt(i)
			want, wantOK = ref.takeAt(i)
		case 2:
			gotOK, wantOK = p.Mark(s), ref.mark(s)
		default:
			p.Release(s)
			ref.release(s)
		}
		if got != want || gotOK != wantOK {
			t.Fatalf("step %d: got %q, %v; want %q, %v", step, got, gotOK, want, wantOK)
		}
		if p.hint != ref.hint {
			t.Fatalf("step %d: hint %d; want %d", step, p.hint, ref.hint)
		}
	}
	for _, i := range append(edges, 5, 700, 2999) {
		if p.Taken(i) != ref.used[i] {
			t.Errorf("index %d: taken %v; want %v", i, p.Taken(i), ref.used[i])
		}
	}
}

// A full bitmap goes on past its end, into the indices kept in the map.
func TestPoolPastTheBitmap(t *testing.T) {
	var p Pool
	p.dense = make([]uint64, denseMax/64)
	for w := range p.dense {
		p.dense[w] = ^uint64(0)
	}
	p.clear(denseMax - 3)
	if s, _ := p.Take(); s != Addr(denseMax-3).String() {
		t.Fatalf("got %s; want the one free bit", s)
	}
	if !p.Mark(Addr(denseMax).String()) || p.Mark(Addr(denseMax).String()) {
		t.Fatal("a mark past the bitmap is not kept")
	}
	if s, _ := p.Take(); s != Addr(denseMax+1).String() {
		t.Fatalf("got %s; want the first index past the bitmap not marked", s)
	}
	p.Release(Addr(denseMax).String())
	if s, _ := p.Take(); s != Addr(denseMax).String() {
		t.Fatalf("got %s; want the released index past the bitmap", s)
	}
}

func TestAddressesAndIndices(t *testing.T) {
	for i, want := range map[uint64]string{0: "192.0.2.2", 252: "192.0.2.254", 253: "198.51.100.2",
		506: "203.0.113.2", 758: "203.0.113.254", 759: "2001:db8::2", 760: "2001:db8::3"} {
		if got := Addr(i).String(); got != want {
			t.Errorf("Addr(%d) = %s; want %s", i, got, want)
		}
		if got, ok := Index(want); !ok || got != i {
			t.Errorf("Index(%s) = %d, %v; want %d", want, got, ok, i)
		}
		if !Owns(netip.MustParseAddr(want)) {
			t.Errorf("%s is not owned", want)
		}
	}
	for _, s := range []string{"10.0.0.2", "192.0.2.1", "192.0.2.255", "2001:db8:1::2", "fe80::1", "junk", "2001:db8::1"} {
		if _, ok := Index(s); ok {
			t.Errorf("%s is taken for a pool address", s)
		}
	}
	if Owns(netip.MustParseAddr("10.0.0.1")) || !Owns(netip.MustParseAddr("192.0.2.1")) {
		t.Error("Owns: wrong ranges")
	}
}

// A MAC is the same address in either case; anything that is not six octets is kept
// as the string it is.
func TestMACs(t *testing.T) {
	var s MACs
	for _, mac := range []string{"BC:24:11:0A:0B:0C", "02:00:00:0A:0B:0C"} {
		s.Add(mac)
		if !s.Has(strings.ToLower(mac)) || !s.Has(mac) || s.Has(mac[:16]+"D") {
			t.Fatalf("%s: wrong membership", mac)
		}
	}
	for _, odd := range []string{"BC-24-11-0A-0B-0C", "BC:24:11:0A:0B", "BC:24:11:0A:0B:0G", "", "BC:24:11:0A:0B:0C:"} {
		if s.Has(odd) {
			t.Errorf("%q is in the set", odd)
		}
		s.Add(odd)
		if !s.Has(odd) {
			t.Errorf("%q was not added", odd)
		}
		s.Remove(odd)
		if s.Has(odd) {
			t.Errorf("%q was not removed", odd)
		}
	}
	s.Remove("bc:24:11:0a:0b:0c")
	if s.Has("BC:24:11:0A:0B:0C") || !s.Has("02:00:00:0A:0B:0C") {
		t.Fatal("the wrong MAC removed")
	}
	if v, ok := parseMAC("FF:FF:FF:FF:FF:FF"); !ok || v != 1<<48-1 {
		t.Fatalf("parseMAC: %x, %v", v, ok)
	}
}

// The set answers as the map of upper-case strings it replaced: random adds and
// removes of Proxmox MACs (the bitmap's, at its pages' and words' edges among them),
// of other MACs and of strings that are not MACs.
func TestMACsAreTheMapTheyReplaced(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var s MACs
	ref := map[string]bool{}
	pick := func() string {
		switch rng.IntN(4) {
		case 0:
			low := []uint64{0, 63, 64, 1023 * 64, 1 << 16, 1<<16 - 1, 1<<24 - 1}[rng.IntN(7)]
			return fmt.Sprintf("BC:24:11:%02X:%02X:%02X", byte(low>>16), byte(low>>8), byte(low))
		case 1:
			return fmt.Sprintf("bc:24:11:%02x:%02x:%02x", rng.IntN(4), rng.IntN(256), rng.IntN(256))
		case 2:
			return fmt.Sprintf("%02X:00:00:00:00:%02X", rng.IntN(4)*2, rng.IntN(8))
		}
		return fmt.Sprintf("MAC-%d", rng.IntN(8)) // callers upper-case what they put in
	}
	for step := range 20000 {
		mac := pick()
		key := strings.ToUpper(mac)
		if rng.IntN(2) == 0 {
			s.Add(mac)
			ref[key] = true
		} else {
			s.Remove(mac)
			delete(ref, key)
		}
		probe := pick()
		if got, want := s.Has(probe), ref[strings.ToUpper(probe)]; got != want {
			t.Fatalf("step %d: Has(%s) = %v; want %v", step, probe, got, want)
		}
	}
	for key := range ref {
		if !s.Has(key) {
			t.Fatalf("%s is not in the set", key)
		}
	}
}

// refPool is the map the pool replaced, as it was.
type refPool struct {
	used map[uint64]bool
	hint uint64
}

func (p *refPool) take() (string, bool) {
	for i := p.hint; i < Size; i++ {
		if !p.used[i] {
			p.used[i] = true
			p.hint = i + 1
			return Addr(i).String(), true
		}
	}
	return "", false
}

func (p *refPool) takeAt(i uint64) (string, bool) {
	if i < Size && !p.used[i] {
		p.used[i] = true
		return Addr(i).String(), true
	}
	return p.take()
}

func (p *refPool) mark(s string) bool {
	i, ok := Index(s)
	if !ok {
		return true
	}
	if p.used[i] {
		return false
	}
	p.used[i] = true
	return true
}

func (p *refPool) release(s string) {
	if i, ok := Index(s); ok {
		delete(p.used, i)
		p.hint = min(p.hint, i)
	}
}
