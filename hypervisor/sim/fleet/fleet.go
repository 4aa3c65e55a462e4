package fleet

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/internal/strblocks"
)

// Fleet holds the simulated machines. A machine the driver seeded or loaded and has
// not touched since is packed: its fields in one fixed-size entry of a slice sorted by
// vmid, its repeated strings (node, template, state, storage, bridge) interned and its
// own (name, MAC, address) in shared blocks. A million machines then take some 0.2 GB
// in a few thousand allocations instead of 0.7 GB in eight million (issue 33: the sim
// lives in vmplane's process, and its world was the largest part of a million
// machines' heap and of the collector's marking).
//
// A call that may change a machine, or keep it, opens it (Get): it becomes a *Machine
// in open for good and its packed entry is gone. Reads that only look (the inventory
// and its pages, one machine's read, the records a first start writes) see a packed
// machine through a view (Peek, Each) and leave it packed.
type Fleet struct {
	open map[int]*Machine
	// packed is in ascending vmid order unless unsorted (while a seed or a load
	// appends); find sorts it first. An entry that was opened or removed stays, gone,
	// until most are (drop).
	packed   []packed
	gone     int
	unsorted bool
	blocks   strblocks.Blocks
	words    words
	// seen is the view's scratch: what view fills for a packed machine, valid until
	// the next view.
	seen     Machine
	seenDisk [1]hypervisor.Disk
	seenNIC  [1]hypervisor.Interface
	seenIP   [1]string
}

// packed is one machine in its compact form: what hypervisor.Machine and machine hold
// for a machine with one disk, one interface (with at most one address), at most two
// power-state changes and nothing else. pack decides which machines fit.
type packed struct {
	name, mac, ip string
	created       int64 // unix nanoseconds
	hist          [2]world.Change
	traffic       Mark
	vmid          int32
	cores, memory int32
	diskGB        int32
	vlan, rate    int32
	// indexes into words
	node, location, template, state, diskID, storage, nicID, bridge uint16
	nHist                                                           uint8
	flags                                                           packedFlags
}

// packedFlags are a packed machine's booleans.
type packedFlags uint8

const (
	packedGone     packedFlags = 1 << iota // opened or removed: not a machine any more
	packedUTC                              // createdAt is in UTC (else in time.Local)
	packedHeadless                         // Machine.Headless
	packedFirewall                         // the interface's Firewall
	packedIP                               // the interface has its one address (else none)
)

// words interns the strings many machines repeat.
type words struct {
	ids  map[string]uint16
	list []string
}

// id is s's index, added if new; false once the table is full.
func (w *words) id(s string) (uint16, bool) {
	if i, ok := w.ids[s]; ok {
		return i, true
	}
	if len(w.list) > math.MaxUint16 {
		return 0, false
	}
	if w.ids == nil {
		w.ids = make(map[string]uint16)
	}
	i := uint16(len(w.list))
	w.ids[s] = i
	w.list = append(w.list, s)
	return i, true
}

// New is an empty fleet.
func New() *Fleet { return &Fleet{open: make(map[int]*Machine)} }

// Len is how many machines there are.
func (f *Fleet) Len() int { return len(f.open) + len(f.packed) - f.gone }

// Packed is how many machines are packed.
func (f *Fleet) Packed() int { return len(f.packed) - f.gone }

// Reserve makes room for n more packed machines (a seed or a load of n).
func (f *Fleet) Reserve(n int) { f.packed = slices.Grow(f.packed, n) }

// Has says whether vmid is a machine, without opening it.
func (f *Fleet) Has(vmid int) bool {
	if _, ok := f.open[vmid]; ok {
		return true
	}
	return f.find(vmid) >= 0
}

// Get opens the machine vmid: the caller may change it and keep it.
func (f *Fleet) Get(vmid int) (*Machine, bool) {
	if m, ok := f.open[vmid]; ok {
		return m, true
	}
	i := f.find(vmid)
	if i < 0 {
		return nil, false
	}
	m := f.unpack(&f.packed[i])
	f.drop(i)
	f.open[vmid] = m
	return m, true
}

// Peek is the machine vmid for reading only, without opening it: a packed machine's
// view is valid until the fleet's next Peek or Each.
func (f *Fleet) Peek(vmid int) (*Machine, bool) {
	if m, ok := f.open[vmid]; ok {
		return m, true
	}
	i := f.find(vmid)
	if i < 0 {
		return nil, false
	}
	return f.view(&f.packed[i]), true
}

// Put adds m, open (replacing any machine of its vmid).
func (f *Fleet) Put(m *Machine) {
	if i := f.find(m.VMID); i >= 0 {
		f.drop(i)
	}
	f.open[m.VMID] = m
}

// PutPacked adds m packed when it fits, else open; either way it replaces any machine
// of its vmid. A packed machine's strings are its entry's: m is not kept.
func (f *Fleet) PutPacked(m *Machine) {
	p, ok := f.pack(m)
	if !ok {
		f.Put(m)
		return
	}
	delete(f.open, m.VMID)
	if i := f.find(m.VMID); i >= 0 {
		f.drop(i)
	}
	if n := len(f.packed); n > 0 && f.packed[n-1].vmid >= p.vmid {
		f.unsorted = true
	}
	f.packed = append(f.packed, p)
}

// Remove deletes the machine vmid.
func (f *Fleet) Remove(vmid int) {
	if _, ok := f.open[vmid]; ok {
		delete(f.open, vmid)
		return
	}
	if i := f.find(vmid); i >= 0 {
		f.drop(i)
	}
}

// VMIDs lists every machine's vmid in ascending order.
func (f *Fleet) VMIDs() []int {
	ids := make([]int, 0, f.Len())
	for id := range f.open {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	f.settle()
	packed := make([]int, 0, len(f.packed)-f.gone)
	for i := range f.packed {
		if f.packed[i].flags&packedGone == 0 {
			packed = append(packed, int(f.packed[i].vmid))
		}
	}
	if len(ids) == 0 {
		return packed
	}
	out := make([]int, 0, len(ids)+len(packed))
	for len(ids) > 0 || len(packed) > 0 {
		if len(packed) == 0 || (len(ids) > 0 && ids[0] < packed[0]) {
			out, ids = append(out, ids[0]), ids[1:]
		} else {
			out, packed = append(out, packed[0]), packed[1:]
		}
	}
	return out
}

// Each calls fn with every machine in ascending vmid order, packed ones as views: fn
// reads them and may move their traffic mark (Machine.Traffic), which is kept; it must
// not keep the pointer, change anything else, or call the fleet.
func (f *Fleet) Each(fn func(m *Machine)) {
	open := make([]int, 0, len(f.open))
	for id := range f.open {
		open = append(open, id)
	}
	sort.Ints(open)
	f.settle()
	i := 0
	for _, id := range open {
		for ; i < len(f.packed) && int(f.packed[i].vmid) < id; i++ {
			f.eachPacked(i, fn)
		}
		fn(f.open[id])
	}
	for ; i < len(f.packed); i++ {
		f.eachPacked(i, fn)
	}
}

func (f *Fleet) eachPacked(i int, fn func(m *Machine)) {
	p := &f.packed[i]
	if p.flags&packedGone != 0 {
		return
	}
	v := f.view(p)
	fn(v)
	p.traffic = v.Traffic
}

// find is the index of vmid's packed entry, or -1.
func (f *Fleet) find(vmid int) int {
	if len(f.packed) == 0 || vmid < math.MinInt32 || vmid > math.MaxInt32 {
		return -1
	}
	f.settle()
	i := sort.Search(len(f.packed), func(i int) bool { return int(f.packed[i].vmid) >= vmid })
	for ; i < len(f.packed) && int(f.packed[i].vmid) == vmid; i++ {
		if f.packed[i].flags&packedGone == 0 {
			return i
		}
	}
	return -1
}

// settle sorts packed after appends out of order.
func (f *Fleet) settle() {
	if f.unsorted {
		slices.SortStableFunc(f.packed, func(a, b packed) int { return int(a.vmid) - int(b.vmid) })
		f.unsorted = false
	}
}

// drop marks packed entry i gone, and compacts once most entries are.
func (f *Fleet) drop(i int) {
	f.packed[i] = packed{vmid: f.packed[i].vmid, flags: packedGone}
	f.gone++
	if f.gone > 1024 && f.gone > len(f.packed)/2 {
		f.packed = slices.DeleteFunc(f.packed, func(p packed) bool { return p.flags&packedGone != 0 })
		f.packed = slices.Clip(f.packed)
		f.gone = 0
	}
}

// pack is m's compact form, or false when m does not fit one.
func (f *Fleet) pack(m *Machine) (packed, bool) {
	hm := &m.Machine
	if len(hm.Disks) != 1 || len(hm.Interfaces) != 1 || hm.Media != "" || hm.BootOrder != nil ||
		hm.Nameservers != nil || hm.Summary || m.Snapshots != nil || m.Parent != "" ||
		len(m.History) == 0 || len(m.History) > 2 {
		return packed{}, false
	}
	disk, nic := hm.Disks[0], hm.Interfaces[0]
	if len(nic.IPAddresses) > 1 || (nic.IPAddresses != nil && len(nic.IPAddresses) == 0) {
		return packed{}, false
	}
	for _, n := range []int{hm.VMID, hm.CPUCores, hm.MemoryMB, disk.SizeGB, nic.VLAN, nic.RateMbps} {
		if n < math.MinInt32 || n > math.MaxInt32 {
			return packed{}, false
		}
	}
	p := packed{vmid: int32(hm.VMID), cores: int32(hm.CPUCores), memory: int32(hm.MemoryMB),
		diskGB: int32(disk.SizeGB), vlan: int32(nic.VLAN), rate: int32(nic.RateMbps),
		created: m.CreatedAt.UnixNano(), traffic: m.Traffic, nHist: uint8(len(m.History))}
	switch m.CreatedAt.Location() {
	case time.UTC:
		p.flags |= packedUTC
	case time.Local:
	default:
		return packed{}, false
	}
	if createdAt(p.created, p.flags) != m.CreatedAt {
		return packed{}, false // a monotonic reading, or out of UnixNano's range
	}
	var ids [10]uint16
	for i, s := range [...]string{hm.Node, hm.Location, hm.TemplateID, string(hm.State), disk.ID,
		disk.Storage, nic.ID, nic.Bridge, string(m.History[0].State), string(m.History[len(m.History)-1].State)} {
		id, ok := f.words.id(s)
		if !ok {
			return packed{}, false
		}
		ids[i] = id
	}
	p.node, p.location, p.template, p.state, p.diskID = ids[0], ids[1], ids[2], ids[3], ids[4]
	p.storage, p.nicID, p.bridge = ids[5], ids[6], ids[7]
	// The history's states too are the table's strings, not one allocation a machine.
	for i, c := range m.History {
		p.hist[i] = world.Change{At: c.At, State: hypervisor.State(f.words.list[ids[8+i]])}
	}
	if hm.Headless {
		p.flags |= packedHeadless
	}
	if nic.Firewall {
		p.flags |= packedFirewall
	}
	p.name = f.blocks.Of(hm.Name)
	p.mac = f.blocks.Of(nic.MAC)
	if len(nic.IPAddresses) == 1 {
		p.flags |= packedIP
		p.ip = f.blocks.Of(nic.IPAddresses[0])
	}
	return p, true
}

// createdAt is a packed creation time as the machine held it.
func createdAt(ns int64, flags packedFlags) time.Time {
	t := time.Unix(0, ns)
	if flags&packedUTC != 0 {
		return t.UTC()
	}
	return t
}

// fill sets hm to p's machine; its disk and interface go where the slices given point.
func (f *Fleet) fill(hm *hypervisor.Machine, p *packed, disks []hypervisor.Disk, nics []hypervisor.Interface, ips []string) {
	w := f.words.list
	disks[0] = hypervisor.Disk{ID: w[p.diskID], Storage: w[p.storage], SizeGB: int(p.diskGB)}
	nics[0] = hypervisor.Interface{ID: w[p.nicID], MAC: p.mac, Bridge: w[p.bridge], VLAN: int(p.vlan),
		RateMbps: int(p.rate), Firewall: p.flags&packedFirewall != 0}
	if p.flags&packedIP != 0 {
		ips[0] = p.ip
		nics[0].IPAddresses = ips[:1:1]
	}
	*hm = hypervisor.Machine{VMID: int(p.vmid), Name: p.name, Node: w[p.node], Location: w[p.location],
		State: hypervisor.State(w[p.state]), CPUCores: int(p.cores), MemoryMB: int(p.memory),
		Disks: disks[:1:1], Interfaces: nics[:1:1], TemplateID: w[p.template], Headless: p.flags&packedHeadless != 0}
}

// unpack is p as a machine of its own.
func (f *Fleet) unpack(p *packed) *Machine {
	m := &Machine{CreatedAt: createdAt(p.created, p.flags), Traffic: p.traffic,
		History: append([]world.Change(nil), p.hist[:p.nHist]...)}
	f.fill(&m.Machine, p, make([]hypervisor.Disk, 1), make([]hypervisor.Interface, 1), make([]string, 1))
	return m
}

// view is p as the fleet's scratch machine, without an allocation: its history is
// p's own.
func (f *Fleet) view(p *packed) *Machine {
	f.seen = Machine{CreatedAt: createdAt(p.created, p.flags), Traffic: p.traffic, History: p.hist[:p.nHist:p.nHist]}
	f.fill(&f.seen.Machine, p, f.seenDisk[:], f.seenNIC[:], f.seenIP[:])
	return &f.seen
}
