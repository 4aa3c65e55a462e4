package pvefake

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

func (c *call) version() {
	if c.s.cfg.RRDLayout == "pve8" {
		c.ok(map[string]any{"version": "8.4.1", "release": "8.4", "repoid": "2a5fa54a8503f96d"})
		return
	}
	c.ok(map[string]any{"version": "9.1.1", "release": "9.1", "repoid": "42fb6c4d1e4c6d8b"})
}

// accessTicket logs a user in. Only the console user exists.
func (c *call) accessTicket() {
	s := c.s
	user := c.form.Get("username")
	if realm := c.form.Get("realm"); realm != "" && !strings.Contains(user, "@") {
		user += "@" + realm
	}
	if user != s.cfg.ConsoleUser || c.form.Get("password") != s.cfg.ConsolePassword {
		c.fail(401, "authentication failure")
		return
	}
	now := s.cfg.Now()
	tk := fmt.Sprintf("PVE:%s:%08X::%s", user, now.Unix(), randomHex(24))
	csrf := fmt.Sprintf("%08X:%s", now.Unix(), randomHex(16))
	s.tickets[tk] = ticket{user: user, csrf: csrf, expires: now.Add(2 * time.Hour)}
	c.ok(map[string]any{"username": user, "ticket": tk, "CSRFPreventionToken": csrf, "cap": map[string]any{}})
}

// clusterResources lists nodes, storages and VMs like /cluster/resources, with the
// optional type filter (vm, node, storage).
func (c *call) clusterResources() {
	s := c.s
	typ := c.form.Get("type")
	switch typ {
	case "", "vm", "node", "storage", "sdn":
	default:
		c.paramErr("type", "value '%s' does not have a value in the enumeration 'vm, storage, node, sdn'", typ)
		return
	}
	var out []map[string]any
	online := map[string]bool{}
	for _, n := range s.nodes {
		online[n.name] = n.online
		if typ != "" && typ != "node" {
			continue
		}
		e := map[string]any{"id": "node/" + n.name, "type": "node", "node": n.name, "level": "",
			"maxcpu": n.maxcpu, "maxmem": n.maxmem, "maxdisk": n.maxdisk}
		if n.online {
			e["status"] = "online"
			e["cpu"] = 0.04
			e["mem"] = n.maxmem / 8
			e["disk"] = n.maxdisk / 5
			e["uptime"] = 864000
		} else {
			e["status"] = "offline"
		}
		out = append(out, e)
	}
	if typ == "" || typ == "storage" {
		for _, st := range s.storages {
			for _, nn := range st.nodes {
				status := "available"
				if !online[nn] {
					status = "unknown"
				}
				out = append(out, map[string]any{"id": "storage/" + nn + "/" + st.name, "type": "storage",
					"storage": st.name, "node": nn, "status": status, "shared": b2i(st.shared),
					"content": st.content, "plugintype": st.plugin, "maxdisk": st.size, "disk": st.size / 10})
			}
		}
	}
	if typ == "" || typ == "vm" {
		s.pvestatdLocked()
		ids := make([]int, 0, len(s.vms))
		for id := range s.vms {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		for _, id := range ids {
			out = append(out, s.vmResourceLocked(s.vms[id], online[s.vms[id].node]))
		}
	}
	c.ok(out)
}

// vmResourceLocked is one VM's /cluster/resources entry. Its status is the QMP status
// where there is one (pvestatd reports qmpstatus || status), "unknown" on a dead node.
func (s *Server) vmResourceLocked(v *vm, nodeOnline bool) map[string]any {
	cores := v.intConfig("cores", 1) * v.intConfig("sockets", 1)
	mem := int64(v.intConfig("memory", 512)) << 20
	var bootGB int
	for _, d := range v.disks() {
		if !d.cdrom {
			bootGB = d.sizeGB
			break
		}
	}
	e := map[string]any{"id": fmt.Sprintf("qemu/%d", v.vmid), "type": "qemu", "vmid": v.vmid,
		"name": v.config["name"], "node": v.node, "template": b2i(v.template()),
		"maxcpu": cores, "maxmem": mem, "maxdisk": int64(bootGB) << 30, "disk": 0}
	status := v.status
	if !nodeOnline {
		status = "unknown"
	}
	if snap, ok := s.statSnap[v.vmid]; ok && s.cfg.StatusLag > 0 && nodeOnline {
		status = snap
	}
	e["status"] = status
	if status == "running" || status == "paused" {
		e["cpu"] = 0.02 + float64(v.vmid%7)/100
		e["mem"] = mem * 2 / 5
		e["uptime"] = 3600
		e["netin"], e["netout"] = 123456, 654321
		e["diskread"], e["diskwrite"] = 1<<20, 2<<20
	} else {
		e["cpu"], e["mem"], e["uptime"] = 0, 0, 0
	}
	if t := v.config["tags"]; t != "" {
		e["tags"] = t
	}
	if v.lock != "" {
		e["lock"] = v.lock
	}
	return e
}

// pvestatdLocked refreshes the VM statuses /cluster/resources shows when StatusLag
// has passed since the last refresh, as pvestatd's cycle does. VMs created since show
// their status at once (pmxcfs learns of a new config file immediately).
func (s *Server) pvestatdLocked() {
	if s.cfg.StatusLag <= 0 {
		return
	}
	now := s.cfg.Now()
	if !s.statAt.IsZero() && now.Sub(s.statAt) < s.cfg.StatusLag {
		return
	}
	s.statAt = now
	s.statSnap = make(map[int]string, len(s.vms))
	for id, v := range s.vms {
		s.statSnap[id] = v.status
	}
}

// nextID answers the lowest free vmid as a string, as Proxmox does, or checks the
// one asked for.
func (c *call) nextID() {
	s := c.s
	if want := c.form.Get("vmid"); want != "" {
		id, err := strconv.Atoi(want)
		if err != nil || id < 100 {
			c.paramErr("vmid", "invalid format - value does not look like a valid VM ID")
			return
		}
		if _, taken := s.vms[id]; taken {
			c.fail(400, "VM %d already exists", id)
			return
		}
		c.ok(strconv.Itoa(id))
		return
	}
	c.ok(strconv.Itoa(s.nextIDLocked()))
}

// taskStatus answers a task's status and advances it by one poll. A task is only
// known on the node it runs on.
func (c *call) taskStatus() {
	t, ok := c.s.tasks[c.p["upid"]]
	if !ok || t.node != c.p["node"] {
		c.fail(500, "no such task")
		return
	}
	c.s.pollLocked(t)
	out := map[string]any{"upid": t.upid, "node": t.node, "pid": t.pid, "pstart": t.pid * 7,
		"starttime": t.start.Unix(), "type": t.typ, "id": t.id, "user": t.user, "status": "running"}
	if t.done {
		out["status"] = "stopped"
		out["exitstatus"] = t.exitstatus
	}
	c.ok(out)
}

// nodeTasks answers GET /nodes/{node}/tasks: the node's tasks, oldest first, filtered
// by vmid (a task's id) when given. source=active lists the tasks not yet stopped,
// archive (the default) the stopped ones, all both. Being listed as active advances a
// task by one poll, as a status read does: the fake's tasks run as they are observed,
// and a process that took over a dead one's work observes them through this list, not
// through UPIDs it never saw.
func (c *call) nodeTasks() {
	source := c.form.Get("source")
	vmid := c.form.Get("vmid")
	var list []*task
	for _, t := range c.s.tasks {
		if t.node != c.p["node"] || (vmid != "" && t.id != vmid) {
			continue
		}
		if source == "active" {
			c.s.pollLocked(t)
		}
		if (source == "active" && t.done) || ((source == "" || source == "archive") && !t.done) {
			continue
		}
		list = append(list, t)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].pid < list[j].pid })
	out := make([]map[string]any, 0, len(list))
	for _, t := range list {
		e := map[string]any{"upid": t.upid, "node": t.node, "pid": t.pid, "pstart": t.pid * 7,
			"starttime": t.start.Unix(), "type": t.typ, "id": t.id, "user": t.user}
		if t.done {
			e["status"] = t.exitstatus
			e["endtime"] = t.start.Unix()
		}
		out = append(out, e)
	}
	c.ok(out)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
