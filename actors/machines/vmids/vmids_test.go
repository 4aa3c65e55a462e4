package vmids

import (
	"maps"
	"math/rand/v2"
	"strconv"
	"testing"
)

// The index answers as the map it replaced did, with Take as the map's read and
// delete: every vmid added, in any order, is found once; vmids never added are not;
// what was not taken is what the map held at the end.
func TestIndexIsTheMapItReplaced(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ref := map[int]string{}
	var x Index
	for len(ref) < 500 {
		vmid := 100 + rng.IntN(5000)
		if _, ok := ref[vmid]; ok {
			continue
		}
		id := "vm-" + strconv.Itoa(rng.IntN(1<<30))
		ref[vmid] = id
		x.Add(vmid, id)
	}
	x.Sorted()
	if x.Len() != len(ref) || !maps.Equal(maps.Collect(x.All()), ref) {
		t.Fatal("All does not yield what was added")
	}
	for vmid := 90; vmid < 5200; vmid++ {
		want, wantOK := ref[vmid]
		if got, ok := x.Get(vmid); got != want || ok != wantOK {
			t.Fatalf("Get(%d) = %q, %v; want %q, %v", vmid, got, ok, want, wantOK)
		}
		if rng.IntN(2) == 0 {
			continue
		}
		got, ok := x.Take(vmid)
		if got != want || ok != wantOK {
			t.Fatalf("Take(%d) = %q, %v; want %q, %v", vmid, got, ok, want, wantOK)
		}
		delete(ref, vmid)
		if _, again := x.Take(vmid); again {
			t.Fatalf("Take(%d) answered twice", vmid)
		}
	}
	if rest := maps.Collect(x.NotTaken()); !maps.Equal(rest, ref) {
		t.Fatalf("NotTaken yields %d machines; want the %d never taken", len(rest), len(ref))
	}
}
