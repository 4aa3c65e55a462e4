package pveconf

import (
	"bytes"
	"strconv"
	"strings"

	pve "github.com/luthermonson/go-proxmox"

	"github.com/vmplane/vmplane/hypervisor"
)

// State maps Proxmox's status (and QMP status and lock) to a machine state.
// /cluster/resources reports the QMP status where there is one ("paused"), status/current
// reports status=running with qmpstatus=paused, and a hibernated VM is stopped with
// lock=suspended: all three are suspended to vmplane.
func State(status, qmp, lock string) hypervisor.State {
	switch status {
	case "running":
		switch qmp {
		case "paused", "suspended", "postmigrate":
			return hypervisor.StateSuspended
		}
		return hypervisor.StateRunning
	case "paused", "suspended":
		return hypervisor.StateSuspended
	case "prelaunch":
		return hypervisor.StateRunning
	case "stopped":
		if lock == "suspended" {
			return hypervisor.StateSuspended
		}
	}
	// stopped, and "unknown" for VMs on a node that is down.
	return hypervisor.StateStopped
}

// UPID is the parsed form of "UPID:node:pid:pstart:starttime:type:id:user:".
type UPID struct {
	Node, Type, ID, User string
}

// ParseUPID reads a UPID; the zero UPID for anything that is not one.
func ParseUPID(s string) UPID {
	f := strings.Split(s, ":")
	if len(f) < 8 || f[0] != "UPID" {
		return UPID{}
	}
	return UPID{Node: f[1], Type: f[5], ID: f[6], User: f[7]}
}

// NullFloat is an RRD value that may be missing: empty buckets come with only "time",
// and Proxmox has sent numbers as strings in some versions. go-proxmox's RRDData uses
// plain floats, which would turn gaps into zeros, so the driver decodes points itself.
type NullFloat struct {
	v  float64
	ok bool
}

// UnmarshalJSON reads a number, a numeric string, null or nothing (a gap).
func (n *NullFloat) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if len(b) == 0 || string(b) == "null" {
		*n = NullFloat{}
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		*n = NullFloat{} // an unreadable value is a gap, not a failed graph
		return nil
	}
	*n = NullFloat{v: f, ok: true}
	return nil
}

// Ptr is the value, nil for a gap.
func (n NullFloat) Ptr() *float64 {
	if !n.ok {
		return nil
	}
	v := n.v
	return &v
}

// RRDPoint is one rrddata bucket of a VM or a node.
type RRDPoint struct {
	Time NullFloat `json:"time"`
	// VM and node
	CPU    NullFloat `json:"cpu"`
	MaxCPU NullFloat `json:"maxcpu"`
	NetIn  NullFloat `json:"netin"`
	NetOut NullFloat `json:"netout"`
	// VM
	Mem       NullFloat `json:"mem"`
	MaxMem    NullFloat `json:"maxmem"`
	DiskRead  NullFloat `json:"diskread"`
	DiskWrite NullFloat `json:"diskwrite"`
	// node
	MemUsed  NullFloat `json:"memused"`
	MemTotal NullFloat `json:"memtotal"`
}

// Number reads a number Proxmox may answer as a JSON number, a string or a
// boolean; 0 for anything else.
func Number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case bool:
		return float64(BoolInt(x))
	case string:
		f, _ := strconv.ParseFloat(x, 64)
		return f
	}
	return 0
}

// MachineFromResource is what is known of a machine whose node is down: its
// /cluster/resources summary (the config is only readable through its own node).
// The boot disk is reported as scsi0 with the summary's maxdisk.
func MachineFromResource(r *pve.ClusterResource) hypervisor.Machine {
	m := hypervisor.Machine{
		VMID:       int(r.VMID),
		Name:       r.Name,
		Node:       r.Node,
		State:      State(r.Status, "", ""),
		CPUCores:   int(r.MaxCPU),
		MemoryMB:   int(r.MaxMem >> 20),
		Disks:      []hypervisor.Disk{},
		Interfaces: []hypervisor.Interface{},
		Summary:    true,
	}
	for _, t := range SplitTags(r.Tags) {
		if id, ok := strings.CutPrefix(t, TemplateTagPrefix); ok {
			m.TemplateID = "tpl-" + id
		}
	}
	if r.MaxDisk > 0 {
		m.Disks = append(m.Disks, hypervisor.Disk{ID: "scsi0", SizeGB: int((r.MaxDisk + 1<<30 - 1) >> 30)})
	}
	return m
}
