package strblocks

import (
	"bytes"
	"fmt"
	"testing"
)

// Strings handed out keep their bytes while the caller's buffer and later strings
// change, across blocks and for a string too long for one; a block holds many.
func TestStringsKeepTheirBytes(t *testing.T) {
	var s Blocks
	buf := make([]byte, 0, 64)
	var got, want []string
	for i := range 20_000 {
		buf = fmt.Appendf(buf[:0], "machine-%08d", i)
		got = append(got, s.String(buf))
		want = append(want, string(buf))
		buf[0] = 'X' // the caller reuses its buffer
	}
	long := bytes.Repeat([]byte("l"), blockSize)
	got, want = append(got, s.String(long)), append(want, string(long))
	long[0] = 'X'
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d: got %.20q; want %.20q", i, got[i], want[i])
		}
	}
	if allocs := testing.AllocsPerRun(1000, func() { s.String([]byte("01J0000000000000000000000")) }); allocs > 0.01 {
		t.Errorf("%v allocations a string; want one a block (%d bytes)", allocs, blockSize)
	}
}

// Of copies a string into the block as String copies bytes, without an allocation of
// its own; a long one is handed back as it is.
func TestOfSharesBlocks(t *testing.T) {
	var s Blocks
	a, b := s.Of("BC:24:11:00:00:01"), s.Of("demo-000001")
	if a != "BC:24:11:00:00:01" || b != "demo-000001" {
		t.Fatalf("got %q and %q", a, b)
	}
	if allocs := testing.AllocsPerRun(1000, func() { s.Of("01J0000000000000000000000") }); allocs > 0.01 {
		t.Errorf("%v allocations a string; want a block's share", allocs)
	}
	long := string(bytes.Repeat([]byte("l"), blockSize))
	if got := s.Of(long); got != long {
		t.Error("a long string changed")
	}
}
