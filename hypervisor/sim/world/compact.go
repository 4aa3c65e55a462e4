package world

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"unique"

	"github.com/vmplane/vmplane/hypervisor"
)

// CompactMachineVersion is the schema version of a machine's record in its compact
// form: a binary record rather than JSON. A million machines' JSON took 37–266 s to
// write or read back and 700 MB of heap on the 2-core host (BENCHMARKS.md, issue 33);
// the compact form is a third of the bytes, decodes without reflection, and the names
// a million machines share (nodes, templates, storages, bridges, states) come back as
// one string each instead of one per machine.
//
// It is written only on a store that is not shared (Batches.Compact): on a shared store
// the members of a cluster mid-upgrade read each other's records, and a vmplane from
// before this form would refuse a record of a version it does not know. Both forms are
// read, so a data directory written as JSON keeps working and turns compact record by
// record as machines are written again.
const CompactMachineVersion = 2

// The layout of a compact record's body (after the store's two-byte version), varints
// unless said otherwise, strings as a uvarint length and the bytes:
//
//	vmid, name, node, location, state, cpu_cores, memory_mb,
//	disks: n × (id, storage, size_gb),
//	interfaces: n × (id, mac, bridge, vlan, rate_mbps, firewall byte, addresses: n × string),
//	(the disks, interfaces, addresses and history count n+1, 0 for a nil list),
//	template_id, media, boot_order: n × string, flags byte (1 headless, 2 summary),
//	nameservers: n × string,
//	created_at: length-prefixed time.Time binary form (its instant and zone offset),
//	history: n × (unix ns delta from the previous entry, state),
//	rare: length-prefixed JSON of the firewall, snapshots and parent; length 0 for none
//
// machineFields is how many fields hypervisor.Machine has; TestCompactCoversMachine
// fails when it changes, so that a new field is not silently dropped by this form.
const machineFields = 15

// The interned strings are what many machines share (node, location, state, template,
// media, storages, bridges, boot devices, nameservers); names, MACs and addresses are
// one per machine and are not interned.

// rare is the part of a machine's record few machines have, kept as JSON inside the
// compact record: firewall rules and snapshots are nested and rarely written.
type rare struct {
	Firewall  *[]hypervisor.FirewallRule `json:"firewall,omitempty"`
	Snapshots []Snapshot                 `json:"snapshots,omitempty"`
	Parent    string                     `json:"parent,omitempty"`
}

// appendCompact appends the compact body of rec to b.
func appendCompact(b []byte, rec *Machine) ([]byte, error) {
	m := &rec.Machine
	str := func(s string) { b = binary.AppendUvarint(b, uint64(len(s))); b = append(b, s...) }
	num := func(n int64) { b = binary.AppendVarint(b, n) }
	strs := func(ss []string) {
		b = binary.AppendUvarint(b, uint64(len(ss)))
		for _, s := range ss {
			str(s)
		}
	}
	num(int64(m.VMID))
	str(m.Name)
	str(m.Node)
	str(m.Location)
	str(string(m.State))
	num(int64(m.CPUCores))
	num(int64(m.MemoryMB))
	b = appendLen(b, m.Disks == nil, len(m.Disks))
	for _, d := range m.Disks {
		str(d.ID)
		str(d.Storage)
		num(int64(d.SizeGB))
	}
	b = appendLen(b, m.Interfaces == nil, len(m.Interfaces))
	for _, nic := range m.Interfaces {
		str(nic.ID)
		str(nic.MAC)
		str(nic.Bridge)
		num(int64(nic.VLAN))
		num(int64(nic.RateMbps))
		if nic.Firewall {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		b = appendLen(b, nic.IPAddresses == nil, len(nic.IPAddresses))
		for _, a := range nic.IPAddresses {
			str(a)
		}
	}
	str(m.TemplateID)
	str(m.Media)
	strs(m.BootOrder)
	var flags byte
	if m.Headless {
		flags |= 1
	}
	if m.Summary {
		flags |= 2
	}
	b = append(b, flags)
	strs(m.Nameservers)
	t, err := rec.CreatedAt.MarshalBinary()
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(t)))
	b = append(b, t...)
	b = appendLen(b, rec.History == nil, len(rec.History))
	var prev int64
	for _, c := range rec.History {
		num(c.At - prev)
		prev = c.At
		str(string(c.State))
	}
	if rec.Firewall == nil && len(rec.Snapshots) == 0 && rec.Parent == "" {
		return append(b, 0), nil
	}
	j, err := json.Marshal(rare{Firewall: rec.Firewall, Snapshots: rec.Snapshots, Parent: rec.Parent})
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(j)))
	return append(b, j...), nil
}

// appendLen writes the length of a list whose nil and empty forms JSON tells apart
// (null, []) and the JSON form kept apart: 0 is nil, n+1 is n entries.
func appendLen(b []byte, isNil bool, n int) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

var errShort = errors.New("compact machine record: truncated")

// compactReader reads a compact body; the first error sticks and later reads return
// zero values.
type compactReader struct {
	b   []byte
	err error
}

func (r *compactReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *compactReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a list's length, refusing one longer than the bytes left could hold
// (each entry is at least a byte): corrupt data must not allocate gigabytes.
func (r *compactReader) count(v uint64) int {
	if r.err == nil && v > uint64(len(r.b)) {
		r.err = errShort
	}
	if r.err != nil {
		return 0
	}
	return int(v)
}

func (r *compactReader) bytes() []byte {
	n := r.count(r.uvarint())
	if r.err != nil {
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// str reads a string; intern says it is one of the names many machines share, which
// comes back as one shared copy (unique.Make) rather than one per record.
func (r *compactReader) str(intern bool) string {
	b := r.bytes()
	if len(b) == 0 {
		return ""
	}
	if intern {
		return unique.Make(string(b)).Value()
	}
	return string(b)
}

func (r *compactReader) strs(intern bool) []string {
	n := r.count(r.uvarint())
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str(intern)
	}
	return out
}

func (r *compactReader) byte() byte {
	if r.err == nil && len(r.b) == 0 {
		r.err = errShort
	}
	if r.err != nil {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// decodeCompact reads what appendCompact wrote.
func decodeCompact(body []byte, rec *Machine) error {
	r := compactReader{b: body}
	m := &rec.Machine
	m.VMID = int(r.varint())
	m.Name = r.str(false)
	m.Node = r.str(true)
	m.Location = r.str(true)
	m.State = hypervisor.State(r.str(true))
	m.CPUCores = int(r.varint())
	m.MemoryMB = int(r.varint())
	if n := r.count(r.uvarint()); n > 0 {
		m.Disks = make([]hypervisor.Disk, n-1)
		for i := range m.Disks {
			m.Disks[i] = hypervisor.Disk{ID: r.str(true), Storage: r.str(true), SizeGB: int(r.varint())}
		}
	}
	if n := r.count(r.uvarint()); n > 0 {
		m.Interfaces = make([]hypervisor.Interface, n-1)
		for i := range m.Interfaces {
			nic := &m.Interfaces[i]
			nic.ID = r.str(true)
			nic.MAC = r.str(false)
			nic.Bridge = r.str(true)
			nic.VLAN = int(r.varint())
			nic.RateMbps = int(r.varint())
			nic.Firewall = r.byte() == 1
			if k := r.count(r.uvarint()); k > 0 {
				nic.IPAddresses = make([]string, k-1)
				for j := range nic.IPAddresses {
					nic.IPAddresses[j] = r.str(false)
				}
			}
		}
	}
	m.TemplateID = r.str(true)
	m.Media = r.str(true)
	m.BootOrder = r.strs(true)
	flags := r.byte()
	m.Headless, m.Summary = flags&1 != 0, flags&2 != 0
	m.Nameservers = r.strs(true)
	if t := r.bytes(); r.err == nil {
		if err := rec.CreatedAt.UnmarshalBinary(t); err != nil {
			return err
		}
	}
	if n := r.count(r.uvarint()); n > 0 {
		rec.History = make([]Change, n-1)
		var at int64
		for i := range rec.History {
			at += r.varint()
			rec.History[i] = Change{At: at, State: hypervisor.State(r.str(true))}
		}
	}
	if j := r.bytes(); len(j) > 0 {
		var x rare
		if err := json.Unmarshal(j, &x); err != nil {
			return err
		}
		rec.Firewall, rec.Snapshots, rec.Parent = x.Firewall, x.Snapshots, x.Parent
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("compact machine record: trailing bytes")
	}
	return r.err
}

// decodeMachine reads a machine's record in either form: JSON (MachineVersion) or
// compact (CompactMachineVersion).
func decodeMachine(val []byte, rec *Machine, what string) error {
	if len(val) >= 2 && binary.BigEndian.Uint16(val) == CompactMachineVersion {
		if err := decodeCompact(val[2:], rec); err != nil {
			return Corrupt("%s: %v", what, err)
		}
		return nil
	}
	return decode(val, CompactMachineVersion, rec, what)
}

// encodeCompact writes a machine's record in the compact form.
func encodeCompact(rec *Machine) ([]byte, error) {
	out := make([]byte, 2, 256)
	binary.BigEndian.PutUint16(out, CompactMachineVersion)
	return appendCompact(out, rec)
}
