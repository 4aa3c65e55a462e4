// Package vmids holds the machine ids of one location by vmid, as a sync reads them
// from the store's vmid index in one scan: one slice sorted by vmid (24 bytes a
// machine, where a map of a million held about 45 MB: issue 33) and a bit a machine
// for those the sync found in the hypervisor's inventory.
package vmids

import (
	"cmp"
	"iter"
	"slices"
)

// Index is a location's machine ids by vmid. Build it with Add and then Sorted; it is
// not safe for concurrent use.
type Index struct {
	entries []entry
	found   []uint64 // bit i: entries[i] was taken
}

type entry struct {
	vmid int
	id   string
}

// Add adds machine id at vmid; vmids are unique in a location.
func (x *Index) Add(vmid int, id string) { x.entries = append(x.entries, entry{vmid, id}) }

// Sorted makes x ready to be searched, once every machine is added.
func (x *Index) Sorted() *Index {
	slices.SortFunc(x.entries, func(a, b entry) int { return cmp.Compare(a.vmid, b.vmid) })
	x.found = make([]uint64, (len(x.entries)+63)/64)
	return x
}

func (x *Index) search(vmid int) (int, bool) {
	return slices.BinarySearchFunc(x.entries, vmid, func(e entry, vmid int) int { return cmp.Compare(e.vmid, vmid) })
}

// Get answers the machine id at vmid.
func (x *Index) Get(vmid int) (string, bool) {
	i, ok := x.search(vmid)
	if !ok {
		return "", false
	}
	return x.entries[i].id, true
}

// Take answers the machine id at vmid and marks it found; a vmid taken before is
// answered as one not in x, as a map's entry deleted once read would be.
func (x *Index) Take(vmid int) (string, bool) {
	i, ok := x.search(vmid)
	if !ok || x.found[i/64]&(1<<(i%64)) != 0 {
		return "", false
	}
	x.found[i/64] |= 1 << (i % 64)
	return x.entries[i].id, true
}

// Len is how many machines x holds, found or not.
func (x *Index) Len() int { return len(x.entries) }

// All yields every vmid and machine id, by vmid.
func (x *Index) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for _, e := range x.entries {
			if !yield(e.vmid, e.id) {
				return
			}
		}
	}
}

// NotTaken yields the vmids and machine ids Take has not answered, by vmid.
func (x *Index) NotTaken() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, e := range x.entries {
			if x.found[i/64]&(1<<(i%64)) == 0 && !yield(e.vmid, e.id) {
				return
			}
		}
	}
}
