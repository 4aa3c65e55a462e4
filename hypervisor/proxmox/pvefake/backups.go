package pvefake

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// vzdump backs one VM up to a storage of its node. The VM holds lock=backup while the
// task runs; the archive appears when it stops.
func (c *call) vzdump() {
	s := c.s
	nodeName := c.p["node"]
	id, err := strconv.Atoi(c.form.Get("vmid"))
	if err != nil {
		c.paramErr("vmid", "this fake needs exactly one vmid")
		return
	}
	v, ok := s.vms[id]
	if !ok || v.node != nodeName {
		c.fail(500, "guest %d is not on node '%s'", id, nodeName)
		return
	}
	stName := c.form.Get("storage")
	if stName == "" {
		stName = "local"
	}
	st := s.storageLocked(stName)
	if st == nil || !st.on(nodeName) {
		c.fail(500, "storage '%s' does not exist", stName)
		return
	}
	if !strings.Contains(st.content, "backup") {
		c.fail(500, "storage '%s' does not support backups", stName)
		return
	}
	if c.lockedLocked(v) {
		return
	}
	mode := c.form.Get("mode")
	if mode == "" {
		mode = "snapshot"
	}
	if mode != "snapshot" && mode != "suspend" && mode != "stop" {
		c.paramErr("mode", "value '%s' does not have a value in the enumeration 'snapshot, suspend, stop'", mode)
		return
	}
	notes := c.form.Get("notes-template")
	v.lock = "backup"
	c.task("vzdump", strconv.Itoa(id), func() string {
		v.lock = ""
		at := s.cfg.Now().UTC()
		var volid string
		for {
			volid = fmt.Sprintf("%s:backup/vzdump-qemu-%d-%s.vma.zst", stName, id, at.Format("2006_01_02-15_04_05"))
			if _, taken := s.backups[volid]; !taken {
				break
			}
			at = at.Add(1e9) // one archive per second, as vzdump's names allow
		}
		var gb int
		for _, d := range v.disks() {
			if !d.cdrom {
				gb += d.sizeGB
			}
		}
		r := strings.NewReplacer("{{guestname}}", v.config["name"], "{{vmid}}", strconv.Itoa(id), "{{node}}", nodeName, "{{cluster}}", "fake")
		b := &backup{volid: volid, storage: stName, vmid: id, size: int64(gb) << 28, ctime: at,
			notes: r.Replace(notes), config: copyMap(v.config), name: v.config["name"]}
		if v.hasFirewallConfig() {
			// vzdump archives /etc/pve/firewall/<vmid>.fw as qemu-server.fw.
			b.fw = &fwConfig{options: copyMap(v.fwOptions), ipsets: copyIPSets(v.ipsets)}
			for _, r := range v.rules {
				b.fw.rules = append(b.fw.rules, copyMap(r))
			}
		}
		if !st.shared {
			b.node = nodeName
		}
		s.backups[volid] = b
		return "OK"
	}, func() { v.lock = "" })
}

// visibleLocked reports whether a backup is on the given node's view of a storage.
func (s *Server) visibleLocked(b *backup, storage, node string) bool {
	return b.storage == storage && (b.node == "" || b.node == node)
}

// storageContent lists backups on a node's storage, filtered by content and vmid.
func (c *call) storageContent() {
	s := c.s
	stName, nodeName := c.p["storage"], c.p["node"]
	if st := s.storageLocked(stName); st == nil || !st.on(nodeName) {
		c.fail(500, "storage '%s' does not exist", stName)
		return
	}
	out := []map[string]any{}
	if ct := c.form.Get("content"); ct == "iso" {
		c.ok(s.isoContent(stName, nodeName))
		return
	} else if ct != "" && ct != "backup" {
		c.ok(out)
		return
	}
	want, _ := strconv.Atoi(c.form.Get("vmid"))
	var list []*backup
	for _, b := range s.backups {
		if s.visibleLocked(b, stName, nodeName) && (want == 0 || b.vmid == want) {
			list = append(list, b)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].volid < list[j].volid })
	for _, b := range list {
		e := map[string]any{"volid": b.volid, "content": "backup", "format": "vma.zst", "size": b.size,
			"ctime": b.ctime.Unix(), "vmid": b.vmid, "subtype": "qemu"}
		if b.notes != "" {
			e["notes"] = b.notes
		}
		out = append(out, e)
	}
	c.ok(out)
}

// deleteVolume removes a backup archive (a task, as in current Proxmox).
func (c *call) deleteVolume() {
	s := c.s
	stName, nodeName, volid := c.p["storage"], c.p["node"], c.p["volume"]
	if st := s.storageLocked(stName); st == nil || !st.on(nodeName) {
		c.fail(500, "storage '%s' does not exist", stName)
		return
	}
	if !strings.Contains(volid, ":") {
		volid = stName + ":" + volid
	}
	if f := s.isoLocked(volid, nodeName); f != nil && f.storage == stName {
		c.task("imgdel", volid, func() string {
			delete(s.isos, s.isoKey(f.volid, f.node))
			return "OK"
		}, nil)
		return
	}
	b, ok := s.backups[volid]
	if !ok || !s.visibleLocked(b, stName, nodeName) {
		c.fail(500, "volume '%s' does not exist", volid)
		return
	}
	c.task("imgdel", volid, func() string {
		delete(s.backups, volid)
		return "OK"
	}, nil)
}

// restore is POST /nodes/{node}/qemu with archive=: it restores a backup onto vmid,
// overwriting a stopped VM when force=1. Onto a new vmid, the disks take the new
// vmid's volume names; unique=1 gives every NIC a new MAC, and config options given
// beside the archive (name=) override the archive's, as Proxmox VE 7.2 and later do.
// An archive that holds a firewall config (qemu-server.fw) writes it over the
// target's /etc/pve/firewall/<vmid>.fw, rules, options and IP sets alike, whatever
// the vmid; one without leaves a VM restored over keeping its own firewall, as
// qemu-server's restore_vma_archive does.
func (c *call) restore() {
	s := c.s
	nodeName := c.p["node"]
	archive := c.form.Get("archive")
	if archive == "" {
		c.paramErr("archive", "pvefake only supports restores (archive=) on this path")
		return
	}
	id, err := strconv.Atoi(c.form.Get("vmid"))
	if err != nil || id < 100 {
		c.paramErr("vmid", "invalid format - value does not look like a valid VM ID")
		return
	}
	stName, _, _ := strings.Cut(archive, ":")
	b, ok := s.backups[archive]
	if !ok || !s.visibleLocked(b, stName, nodeName) {
		c.fail(500, "volume '%s' does not exist", archive)
		return
	}
	v, exists := s.vms[id]
	if exists {
		switch {
		case v.node != nodeName:
			c.fail(500, "unable to restore VM %d - VM exists on node '%s'", id, v.node)
			return
		case !boolParam(c.form.Get("force")):
			c.fail(500, "unable to restore VM %d: config file already exists", id)
			return
		case v.status != "stopped":
			c.fail(500, "unable to restore VM %d - VM is running", id)
			return
		case c.lockedLocked(v):
			return
		}
	}
	c.task("qmrestore", strconv.Itoa(id), func() string {
		cfg := restoredConfig(s, b, id, c.form.Get("name"), boolParam(c.form.Get("unique")))
		cur, ok := s.vms[id]
		if ok {
			cur.config = cfg
			cur.snapshots, cur.parent = nil, "" // the archive holds no snapshots
			cur.status = "stopped"
			cur.lock = ""
			cur.version++
		} else {
			cur = &vm{vmid: id, node: nodeName, status: "stopped", config: cfg, version: 1, created: s.cfg.Now()}
			s.vms[id] = cur
		}
		if b.fw != nil {
			cur.rules = nil
			for _, r := range b.fw.rules {
				cur.rules = append(cur.rules, copyMap(r))
			}
			cur.fwOptions = copyMap(b.fw.options)
			cur.ipsets = copyIPSets(b.fw.ipsets)
			cur.fwVersion++
		}
		return "OK"
	}, nil)
}

// restoredConfig is a backup's config as restored onto vmid (see restore). It runs
// under the server's lock (the task's apply).
func restoredConfig(s *Server, b *backup, vmid int, name string, unique bool) map[string]string {
	cfg := copyMap(b.config)
	old, now := fmt.Sprintf("vm-%d-", b.vmid), fmt.Sprintf("vm-%d-", vmid)
	for k, v := range cfg {
		if vmid != b.vmid {
			v = strings.ReplaceAll(v, old, now)
		}
		if unique && strings.HasPrefix(k, "net") {
			if model, rest, ok := strings.Cut(v, "="); ok {
				_, opts, _ := strings.Cut(rest, ",")
				v = model + "=" + s.newMACLocked()
				if opts != "" {
					v += "," + opts
				}
			}
		}
		cfg[k] = v
	}
	if name != "" {
		cfg["name"] = name
	}
	return cfg
}
