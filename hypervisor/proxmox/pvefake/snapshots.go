package pvefake

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// vmSnapshot is one snapshot of a VM: a section of its config file in Proxmox.
type vmSnapshot struct {
	name        string
	description string
	snaptime    time.Time
	vmstate     bool // the VM's memory was saved with it
	parent      string
	config      map[string]string
}

// configID is pve-configid, the format of a snapshot's name; maxSnapname is
// pve-snapshot-name's maxLength.
var configID = regexp.MustCompile(`^(?i)[a-z][a-z0-9_-]+$`)

const maxSnapname = 40

// snapshotKeep are the config keys a snapshot does not copy from the VM and a rollback
// keeps (qemu-server's __snapshot_copy_config and __snapshot_apply_config): the VM's
// own description and its unused volumes.
var snapshotKeep = regexp.MustCompile(`^(description|unused\d+)$`)

// snapnameOK checks the snapshot name of a path or body as pveproxy does before any
// handler runs, and answers the 400 when it is bad.
func (c *call) snapnameOK(name string) bool {
	switch {
	case len(name) > maxSnapname:
		c.paramErr("snapname", "value may only be %d characters long", maxSnapname)
		return false
	case !configID.MatchString(name):
		c.paramErr("snapname", "invalid format - invalid configuration ID '%s'", name)
		return false
	}
	return true
}

// snapshotTask runs a snapshot operation as Proxmox's worker does: it takes the VM's
// lock (lock) for the task's life, or, when another lock is held, the task fails with
// qemu-server's check_lock message and changes nothing.
func (c *call) snapshotTask(typ string, v *vm, lock string, apply func() string) {
	held := v.lock
	if held == "" {
		v.lock = lock
	}
	release := func() {
		if held == "" && v.lock == lock {
			v.lock = ""
		}
	}
	c.task(typ, strconv.Itoa(v.vmid), func() string {
		if held != "" {
			return fmt.Sprintf("VM is locked (%s)", held)
		}
		release()
		if c.s.vms[v.vmid] != v {
			return fmt.Sprintf("Configuration file 'nodes/%s/qemu-server/%d.conf' does not exist", v.node, v.vmid)
		}
		return apply()
	}, release)
}

// snapshotList is GET .../snapshot: every snapshot (in no particular order, as
// Proxmox walks a hash; the fake sorts by name) and the entry "current", the VM as it
// is, whose parent is the snapshot it is at.
func (c *call) snapshotList() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	names := make([]string, 0, len(v.snapshots))
	for n := range v.snapshots {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]map[string]any, 0, len(names)+1)
	for _, n := range names {
		s := v.snapshots[n]
		e := map[string]any{"name": n, "snaptime": s.snaptime.Unix(), "vmstate": b2i(s.vmstate), "description": s.description}
		if s.parent != "" {
			e["parent"] = s.parent
		}
		out = append(out, e)
	}
	cur := map[string]any{"name": "current", "digest": v.digest(), "running": b2i(v.status != "stopped"), "description": "You are here!"}
	if v.parent != "" {
		cur["parent"] = v.parent
	}
	c.ok(append(out, cur))
}

// snapshotCreate is POST .../snapshot. Like qemu-server it refuses the reserved names
// at once and checks the rest in its worker: a template, a name already used. The
// memory (vmstate) is saved only when the VM runs (paused included): for a stopped
// VM Proxmox quietly takes the disks alone.
func (c *call) snapshotCreate() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	name := c.form.Get("snapname")
	if !c.snapnameOK(name) {
		return
	}
	if name == "current" || strings.EqualFold(name, "pending") {
		c.fail(500, "unable to use snapshot name '%s' (reserved name)", name)
		return
	}
	vmstate, desc := boolParam(c.form.Get("vmstate")), c.form.Get("description")
	c.snapshotTask("qmsnapshot", v, "snapshot", func() string {
		switch {
		case v.template():
			return "you can't take a snapshot if it's a template"
		case v.snapshots[name] != nil:
			return fmt.Sprintf("snapshot name '%s' already used", name)
		}
		cfg := map[string]string{}
		for k, val := range v.config {
			if !snapshotKeep.MatchString(k) {
				cfg[k] = val
			}
		}
		if v.snapshots == nil {
			v.snapshots = map[string]*vmSnapshot{}
		}
		v.snapshots[name] = &vmSnapshot{name: name, description: desc, snaptime: c.s.cfg.Now(),
			vmstate: vmstate && v.status != "stopped", parent: v.parent, config: cfg}
		v.parent = name
		v.version++
		return "OK"
	})
}

// onSnapshot runs fn as the task typ (holding lock) on the snapshot the path names,
// after the checks Proxmox makes before it starts one: the VM, its lock, the name's
// form. A snapshot that does not exist fails the task, as qemu-server's does.
func (c *call) onSnapshot(typ, lock string, fn func(v *vm, s *vmSnapshot, name string) string) {
	v := c.vmLocked()
	if v == nil {
		return
	}
	name := c.p["snapname"]
	if !c.snapnameOK(name) {
		return
	}
	c.snapshotTask(typ, v, lock, func() string {
		s := v.snapshots[name]
		if s == nil {
			return fmt.Sprintf("snapshot '%s' does not exist", name)
		}
		return fn(v, s, name)
	})
}

// snapshotRollback is POST .../snapshot/{snapname}/rollback: the VM is stopped, its
// config becomes the snapshot's (its description and unused volumes stay), and it
// is started again from the saved memory when the snapshot has it, or with start=1.
func (c *call) snapshotRollback() {
	start := boolParam(c.form.Get("start"))
	c.onSnapshot("qmrollback", "rollback", func(v *vm, s *vmSnapshot, name string) string {
		if v.template() {
			return "you can't rollback if vm is a template"
		}
		cfg := copyMap(s.config)
		for k, val := range v.config {
			if snapshotKeep.MatchString(k) {
				cfg[k] = val
			}
		}
		v.config = cfg
		v.parent = name
		v.version++
		v.status = "stopped"
		if s.vmstate || start {
			v.status = "running"
		}
		return "OK"
	})
}

// snapshotDelete is DELETE .../snapshot/{snapname}: the snapshots taken from it, and
// the VM when it is at it, take its parent as theirs.
func (c *call) snapshotDelete() {
	c.onSnapshot("qmdelsnapshot", "snapshot-delete", func(v *vm, s *vmSnapshot, name string) string {
		for _, o := range v.snapshots {
			if o.parent == name {
				o.parent = s.parent
			}
		}
		if v.parent == name {
			v.parent = s.parent
		}
		delete(v.snapshots, name)
		v.version++
		return "OK"
	})
}

// Snapshots returns the names of a VM's snapshots, sorted, and the one it is at.
func (s *Server) Snapshots(vmid int) (names []string, parent string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vms[vmid]
	if !ok {
		return nil, ""
	}
	for n := range v.snapshots {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, v.parent
}
