package pvefake

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// node is one cluster member.
type node struct {
	name    string
	online  bool
	maxcpu  int
	maxmem  int64
	maxdisk int64
}

// storage is a storage definition; shared storages show the same content on every node.
type storage struct {
	name    string
	content string
	plugin  string
	shared  bool
	nodes   []string
	size    int64
}

func (st *storage) on(node string) bool {
	for _, n := range st.nodes {
		if n == node {
			return true
		}
	}
	return false
}

// vm is one QEMU guest (or template).
type vm struct {
	vmid      int
	node      string
	status    string // running, stopped, paused
	config    map[string]string
	lock      string
	lockReads int // config reads left before a finished clone's lock clears
	version   int // bumps on every config write; the digest derives from it
	rules     []map[string]string
	fwOptions map[string]string
	fwVersion int
	// ipsets are the VM firewall's IP sets by name (ipfilter-net0 among them).
	ipsets  map[string]*ipSet
	created time.Time
	// snapshots are the VM's snapshots by name, and parent the one it is at ("" for
	// none): the sections and the parent key of its config file in Proxmox.
	snapshots map[string]*vmSnapshot
	parent    string
}

// digest changes on every write of the config, as Proxmox's SHA-1 of the file does.
func (v *vm) digest() string {
	keys := make([]string, 0, len(v.config))
	for k := range v.config {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha1.New()
	fmt.Fprintf(h, "%d:%d\n", v.vmid, v.version)
	for _, k := range keys {
		fmt.Fprintf(h, "%s: %s\n", k, v.config[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fwDigest guards the firewall rule list and options.
func (v *vm) fwDigest() string {
	h := sha1.New()
	fmt.Fprintf(h, "%d:%d\n", v.vmid, v.fwVersion)
	for _, r := range v.rules {
		keys := make([]string, 0, len(r))
		for k := range r {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "%s:%s\n", k, r[k])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (v *vm) template() bool { return v.config["template"] == "1" }

func (v *vm) intConfig(key string, def int) int {
	s := strings.TrimPrefix(v.config[key], "current=")
	if i := strings.IndexByte(s, ','); i >= 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

// diskKey matches the config keys of disks.
var diskKey = regexp.MustCompile(`^(scsi|virtio|sata|ide|efidisk|tpmstate)\d+$`)

// vmDisk is one parsed disk entry.
type vmDisk struct {
	key     string
	storage string
	volume  string
	sizeGB  int
	cdrom   bool
}

// disks lists the VM's disks (cdroms and cloud-init drives flagged).
func (v *vm) disks() []vmDisk {
	var out []vmDisk
	for k, val := range v.config {
		if !diskKey.MatchString(k) {
			continue
		}
		d := vmDisk{key: k}
		parts := strings.Split(val, ",")
		if st, vol, ok := strings.Cut(parts[0], ":"); ok {
			d.storage, d.volume = st, vol
		}
		for _, p := range parts[1:] {
			if sz, ok := strings.CutPrefix(p, "size="); ok {
				d.sizeGB = parseSizeGB(sz)
			}
			if p == "media=cdrom" {
				d.cdrom = true
			}
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// parseSizeGB reads a Proxmox size ("32G", "512M", "1T", "1024") as whole GiB, rounding up.
func parseSizeGB(s string) int {
	if s == "" {
		return 0
	}
	mult := 1.0 / (1 << 30)
	switch s[len(s)-1] {
	case 'K':
		mult, s = 1.0/(1<<20), s[:len(s)-1]
	case 'M':
		mult, s = 1.0/(1<<10), s[:len(s)-1]
	case 'G':
		mult, s = 1, s[:len(s)-1]
	case 'T':
		mult, s = 1<<10, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	g := f * mult
	n := int(g)
	if float64(n) < g {
		n++
	}
	return n
}

// task is one worker task.
type task struct {
	upid       string
	node       string
	typ        string
	id         string
	user       string
	pid        int
	start      time.Time
	polls      int
	done       bool
	exitstatus string
	apply      func() string // runs once when the task stops; its result is the exitstatus
}

// backup is one vzdump archive on a storage.
type backup struct {
	volid   string
	storage string
	node    string // the node whose storage holds it ("" on shared storage)
	vmid    int
	size    int64
	ctime   time.Time
	notes   string
	config  map[string]string
	name    string
	// fw is the VM's firewall config as vzdump archived it (qemu-server.fw), nil
	// when the VM had none.
	fw *fwConfig
}

// fwConfig is the content of a VM's firewall config file: rules, options, IP sets.
type fwConfig struct {
	rules   []map[string]string
	options map[string]string
	ipsets  map[string]*ipSet
}

// ticket is a login session from /access/ticket.
type ticket struct {
	user    string
	csrf    string
	expires time.Time
}

// vncTicket is a termproxy or vncproxy ticket: it lets its user open one VM's console
// on one port; display marks a vncproxy's (an RFB server behind the websocket).
type vncTicket struct {
	display bool
	user    string
	vmid    int
	port    int
	expires time.Time
}

func (s *Server) nodeLocked(name string) *node {
	for _, n := range s.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

func (s *Server) storageLocked(name string) *storage {
	for _, st := range s.storages {
		if st.name == name {
			return st
		}
	}
	return nil
}

// nextIDLocked is the lowest free vmid ≥ 100, as /cluster/nextid answers.
func (s *Server) nextIDLocked() int {
	for id := 100; ; id++ {
		if _, ok := s.vms[id]; !ok {
			return id
		}
	}
}

// newMACLocked hands out MACs in the Proxmox OUI, never the same twice.
func (s *Server) newMACLocked() string {
	s.macSeq++
	n := s.macSeq
	return fmt.Sprintf("BC:24:11:%02X:%02X:%02X", byte(n>>16), byte(n>>8), byte(n))
}

// newTaskLocked registers a worker task and returns its UPID, formatted as Proxmox's
// "UPID:node:pid:pstart:starttime:type:id:user:". apply runs when the task stops.
func (s *Server) newTaskLocked(node, typ, id, user string, f *Fault, apply func() string) string {
	s.pidSeq++
	now := s.cfg.Now()
	upid := fmt.Sprintf("UPID:%s:%08X:%08X:%08X:%s:%s:%s:", node, s.pidSeq, s.pidSeq*7, now.Unix(), typ, id, user)
	if f != nil && f.TaskExit != "" {
		exit := f.TaskExit
		apply = func() string { return exit }
	}
	s.tasks[upid] = &task{upid: upid, node: node, typ: typ, id: id, user: user, pid: s.pidSeq, start: now, apply: apply}
	return upid
}

// pollLocked advances a task by one status poll, finishing it after TaskPolls polls.
// While tasks are held (HoldTasks) no task advances.
func (s *Server) pollLocked(t *task) {
	if t.done || s.held > 0 {
		return
	}
	t.polls++
	if t.polls < s.cfg.TaskPolls {
		return
	}
	t.done = true
	t.exitstatus = "OK"
	if t.apply != nil {
		t.exitstatus = t.apply()
	}
}
