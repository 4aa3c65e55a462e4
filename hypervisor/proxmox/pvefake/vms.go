package pvefake

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// configType is a config key's type as the config's return schema declares it ("" for
// a key it does not know).
func configType(key string) string {
	props := apiSchema["/nodes/{node}/qemu/{vmid}/config"]["GET"].Returns.Properties
	p, ok := props[key]
	if !ok {
		if m := indexedParam.FindStringSubmatch(key); m != nil {
			p, ok = props[m[1]+"[n]"]
		}
	}
	if !ok {
		return ""
	}
	return p.Type
}

// configNumber reports whether Proxmox answers a config key as a JSON number: its
// integer and boolean keys (qemu-server's parser turns them into Perl numbers).
// Everything else, numbers such as cpulimit included, comes back as the config file's
// text.
func configNumber(key string) bool {
	t := configType(key)
	return t == "integer" || t == "boolean"
}

// getConfig answers a VM's config with its digest. A finished clone's lock lingers
// for CloneLockReads reads, as Proxmox clears it a moment after the worker ends.
func (c *call) getConfig() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	out := map[string]any{"digest": v.digest()}
	for k, val := range v.config {
		if k == "cipassword" {
			out[k] = "**********"
			continue
		}
		if n, err := strconv.Atoi(val); err == nil && configNumber(k) {
			out[k] = n
			continue
		}
		out[k] = val
	}
	if v.lock != "" {
		out["lock"] = v.lock
		if v.lockReads > 0 {
			v.lockReads--
			if v.lockReads == 0 {
				v.lock = ""
			}
		}
	}
	c.ok(out)
}

// postConfig is the asynchronous config API: it validates now and applies when its
// task stops.
func (c *call) postConfig() {
	v := c.vmLocked()
	if v == nil || c.lockedLocked(v) {
		return
	}
	// qemu-server checks the digest inside the worker, under the config lock: a
	// concurrent edit makes the task fail, not the request.
	digest := c.form.Get("digest")
	c.form.Del("digest")
	apply, ok := c.prepareConfig(v)
	if !ok {
		return
	}
	c.task("qmconfig", strconv.Itoa(v.vmid), func() string {
		if cur, exists := c.s.vms[v.vmid]; !exists || cur != v {
			return fmt.Sprintf("VM %d does not exist anymore", v.vmid)
		}
		if digest != "" && digest != v.digest() {
			return modifiedMessage
		}
		apply()
		return "OK"
	}, nil)
}

// modifiedMessage is PVE::Tools::assert_if_modified's error.
const modifiedMessage = "detected modified configuration - file changed by other user? Try again."

// putConfig is the synchronous config API.
func (c *call) putConfig() {
	v := c.vmLocked()
	if v == nil || c.lockedLocked(v) {
		return
	}
	apply, ok := c.prepareConfig(v)
	if !ok {
		return
	}
	apply()
	c.ok(nil)
}

var (
	dnsName  = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)
	netKey   = regexp.MustCompile(`^net\d+$`)
	volIndex = regexp.MustCompile(`(?:vm|base)-\d+-disk-(\d+)`)
	nicModel = map[string]bool{"virtio": true, "e1000": true, "e1000e": true, "rtl8139": true, "vmxnet3": true}
	// configMeta are parameters of the config call that are not config keys.
	configMeta = map[string]bool{"node": true, "vmid": true, "digest": true, "delete": true, "skiplock": true, "background_delay": true, "force": true}
)

// prepareConfig validates a config change (digest, values) and returns the function
// that applies it.
func (c *call) prepareConfig(v *vm) (func(), bool) {
	if d := c.form.Get("digest"); d != "" && d != v.digest() {
		c.fail(500, "%s", modifiedMessage)
		return nil, false
	}
	set := map[string]string{}
	for k, vals := range c.form {
		if configMeta[k] || len(vals) == 0 {
			continue
		}
		val := vals[len(vals)-1]
		switch {
		case k == "cores" || k == "sockets":
			if n, err := strconv.Atoi(val); err != nil || n < 1 || n > 1024 {
				c.paramErr(k, "value must have a minimum value of 1 and a maximum of 1024")
				return nil, false
			}
		case k == "memory":
			if n, err := strconv.Atoi(strings.TrimPrefix(val, "current=")); err != nil || n < 16 {
				c.paramErr(k, "value must have a minimum value of 16")
				return nil, false
			}
		case k == "name":
			if !dnsName.MatchString(val) {
				c.paramErr(k, "invalid format - value does not look like a valid DNS name")
				return nil, false
			}
		case netKey.MatchString(k):
			first, _, _ := strings.Cut(val, ",")
			model, _, _ := strings.Cut(first, "=")
			if strings.HasPrefix(first, "model=") {
				model = strings.TrimPrefix(first, "model=")
			}
			if !nicModel[model] {
				c.paramErr(k, "invalid format - format error\n%s.model: value '%s' does not have a value in the enumeration", k, model)
				return nil, false
			}
		case ipconfigKey.MatchString(k):
			if err := checkIPConfig(k, val); err != nil {
				c.paramErr(k, "%s", err.Error())
				return nil, false
			}
		case diskKey.MatchString(k):
			spec, _, _ := strings.Cut(val, ",")
			st, vol, ok := strings.Cut(spec, ":")
			if !ok && spec != "none" {
				c.paramErr(k, "invalid format - unable to parse volume ID '%s'", spec)
				return nil, false
			}
			if ok {
				sto := c.s.storageLocked(st)
				if sto == nil || !sto.on(v.node) {
					c.fail(500, "storage '%s' does not exist", st)
					return nil, false
				}
				if strings.HasPrefix(vol, "iso/") && c.s.isoLocked(spec, v.node) == nil {
					c.fail(500, "volume '%s' does not exist", spec)
					return nil, false
				}
				if _, err := strconv.Atoi(vol); err == nil && !strings.Contains(sto.content, "images") {
					c.fail(500, "storage '%s' does not support content-type 'images'", st)
					return nil, false
				}
			}
		}
		if configType(k) == "boolean" { // pveproxy's parameter check stores booleans as 0/1
			val = strconv.Itoa(b2i(boolParam(val)))
		}
		set[k] = val
	}
	del := strings.FieldsFunc(c.form.Get("delete"), func(r rune) bool { return r == ',' || r == ';' || r == ' ' })
	return func() {
		for _, k := range del {
			delete(v.config, k)
		}
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			val := set[k]
			switch {
			case diskKey.MatchString(k):
				val = c.s.allocateLocked(v, val)
			case netKey.MatchString(k):
				first, rest, _ := strings.Cut(val, ",")
				if !strings.Contains(first, "=") { // model without a MAC: Proxmox picks one
					first += "=" + c.s.newMACLocked()
				}
				val = first
				if rest != "" {
					val += "," + rest
				}
			}
			v.config[k] = val
		}
		v.version++
	}, true
}

// allocateLocked turns "STORAGE:SIZE_GiB[,opts]" into a new volume, as Proxmox
// allocates a disk; a reference to an existing volume stays as it is.
func (s *Server) allocateLocked(v *vm, val string) string {
	spec, opts, _ := strings.Cut(val, ",")
	st, size, ok := strings.Cut(spec, ":")
	n, err := strconv.Atoi(size)
	if !ok || err != nil {
		return val
	}
	next := 0
	for _, d := range v.disks() {
		if m := volIndex.FindStringSubmatch(d.volume); m != nil {
			if i, _ := strconv.Atoi(m[1]); i >= next {
				next = i + 1
			}
		}
	}
	out := fmt.Sprintf("%s:vm-%d-disk-%d", st, v.vmid, next)
	if opts != "" {
		out += "," + opts
	}
	return out + fmt.Sprintf(",size=%dG", n)
}

// resize grows a disk ("+10G" or an absolute "32G"); shrinking fails.
func (c *call) resize() {
	v := c.vmLocked()
	if v == nil || c.lockedLocked(v) {
		return
	}
	digest := c.form.Get("digest")
	key, size := c.form.Get("disk"), c.form.Get("size")
	var disk *vmDisk
	for _, d := range v.disks() {
		if d.key == key && !d.cdrom {
			disk = &d
			break
		}
	}
	if disk == nil {
		c.fail(500, "disk '%s' does not exist", key)
		return
	}
	if size == "" {
		c.paramErr("size", "property is missing and it is not optional")
		return
	}
	want := 0
	if rel, ok := strings.CutPrefix(size, "+"); ok {
		want = disk.sizeGB + parseSizeGB(rel)
	} else {
		want = parseSizeGB(size)
	}
	if want < disk.sizeGB {
		c.fail(500, "shrinking disks is not supported")
		return
	}
	c.task("resize", strconv.Itoa(v.vmid), func() string {
		if digest != "" && digest != v.digest() { // checked in the worker, as qemu-server does
			return modifiedMessage
		}
		val := v.config[key]
		parts := strings.Split(val, ",")
		found := false
		for i, p := range parts {
			if strings.HasPrefix(p, "size=") {
				parts[i], found = fmt.Sprintf("size=%dG", want), true
			}
		}
		if !found {
			parts = append(parts, fmt.Sprintf("size=%dG", want))
		}
		v.config[key] = strings.Join(parts, ",")
		v.version++
		return "OK"
	}, nil)
}

// clone copies a VM or template. The new VM exists at once, locked (clone), and the
// lock clears a little after the task stops.
func (c *call) clone() {
	s := c.s
	src := c.vmLocked()
	if src == nil {
		return
	}
	newid, err := strconv.Atoi(c.form.Get("newid"))
	if err != nil || newid < 100 {
		c.paramErr("newid", "invalid format - value does not look like a valid VM ID")
		return
	}
	if _, taken := s.vms[newid]; taken {
		c.fail(500, "unable to create VM %d: config file already exists", newid)
		return
	}
	if src.lock != "" && !src.template() {
		c.fail(500, "VM %d is locked (%s)", src.vmid, src.lock)
		return
	}
	target := c.form.Get("target")
	if target == "" {
		target = src.node
	}
	tn := s.nodeLocked(target)
	if tn == nil {
		c.fail(500, "no such cluster node '%s'", target)
		return
	}
	if !tn.online {
		c.fail(500, "target node '%s' not online", target)
		return
	}
	storageParam := c.form.Get("storage")
	if storageParam != "" {
		if st := s.storageLocked(storageParam); st == nil || !st.on(target) {
			c.fail(500, "storage '%s' does not exist", storageParam)
			return
		}
	}
	if target != src.node {
		for _, d := range src.disks() {
			if st := s.storageLocked(d.storage); st != nil && !st.shared && !d.cdrom {
				c.fail(500, "can't clone VM to node '%s' (VM uses local storage)", target)
				return
			}
		}
	}
	name := c.form.Get("name")
	if name == "" {
		name = "Copy-of-VM-" + src.config["name"]
	}
	if !dnsName.MatchString(name) {
		c.paramErr("name", "invalid format - value does not look like a valid DNS name")
		return
	}
	cfg := map[string]string{}
	for k, val := range src.config {
		switch {
		case k == "template":
			continue
		case diskKey.MatchString(k):
			parts := strings.Split(val, ",")
			st, vol, _ := strings.Cut(parts[0], ":")
			if storageParam != "" && !strings.Contains(val, "media=cdrom") {
				st = storageParam
			}
			if strings.Contains(vol, "cloudinit") {
				parts[0] = fmt.Sprintf("%s:vm-%d-cloudinit", st, newid)
			} else if m := volIndex.FindStringSubmatch(vol); m != nil {
				parts[0] = fmt.Sprintf("%s:vm-%d-disk-%s", st, newid, m[1])
			}
			val = strings.Join(parts, ",")
		case netKey.MatchString(k):
			first, rest, _ := strings.Cut(val, ",")
			model, _, _ := strings.Cut(first, "=")
			val = model + "=" + s.newMACLocked()
			if rest != "" {
				val += "," + rest
			}
		}
		cfg[k] = val
	}
	cfg["name"] = name
	nv := &vm{vmid: newid, node: target, status: "stopped", config: cfg, lock: "clone", version: 1, created: s.cfg.Now()}
	// qemu-server's clone copies the source's VM firewall config file
	// (clone_vmfw_conf): rules, options and IP sets.
	for _, r := range src.rules {
		nv.rules = append(nv.rules, copyMap(r))
	}
	nv.fwOptions = copyMap(src.fwOptions)
	nv.ipsets = copyIPSets(src.ipsets)
	s.vms[newid] = nv
	c.task("qmclone", strconv.Itoa(src.vmid), func() string {
		nv.lockReads = s.cfg.CloneLockReads
		if nv.lockReads == 0 {
			nv.lock = ""
		}
		return "OK"
	}, func() {
		if s.vms[newid] == nv {
			delete(s.vms, newid)
		}
	})
}

// destroy deletes a stopped VM with its disks and firewall config.
func (c *call) destroy() {
	v := c.vmLocked()
	if v == nil || c.lockedLocked(v) {
		return
	}
	if v.status != "stopped" {
		c.fail(500, "VM %d is running - destroy failed", v.vmid)
		return
	}
	c.task("qmdestroy", strconv.Itoa(v.vmid), func() string {
		if c.s.vms[v.vmid] == v {
			delete(c.s.vms, v.vmid)
		}
		return "OK"
	}, nil)
}

// statusCurrent answers the VM's live status; a paused VM is status=running with
// qmpstatus=paused, as QEMU reports it.
func (c *call) statusCurrent() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	status, qmp := v.status, v.status
	if v.status == "paused" {
		status = "running"
	}
	// ha is always there (vm_status adds the HA manager's view); the fake has no HA
	// manager, so no VM is managed.
	out := map[string]any{"vmid": v.vmid, "name": v.config["name"], "status": status, "qmpstatus": qmp,
		"cpus": v.intConfig("cores", 1) * v.intConfig("sockets", 1), "maxmem": int64(v.intConfig("memory", 512)) << 20,
		"ha": map[string]any{"managed": 0}}
	if v.template() {
		out["template"] = 1
	}
	if v.lock != "" {
		out["lock"] = v.lock
	}
	c.ok(out)
}

// statusAction runs a power action as a task; its effect lands when the task stops.
//
// It checks qemu-server's own preconditions, in PVE's terms and words ("paused", "VM
// 100 not running", stop allowed from any state), not hypervisor.PowerTransition: the
// fake models the server the driver talks to, and the driver's job is to map our
// state machine onto it. Sharing the table would hide a driver that sends an action
// Proxmox refuses, or maps a state wrongly, behind a fake that agrees by construction.
func (c *call) statusAction() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	action := c.p["action"]
	to := map[string]string{"start": "running", "stop": "stopped", "shutdown": "stopped", "reboot": "running",
		"reset": "running", "suspend": "paused", "resume": "running"}[action]
	if to == "" {
		c.fail(501, "Method 'POST %s' not implemented", c.path)
		return
	}
	if action != "stop" && c.lockedLocked(v) { // stop may always break a hung guest
		return
	}
	if v.template() {
		c.fail(500, "you can't start a vm if it's a template")
		return
	}
	check := func() string {
		switch {
		case action == "start" && v.status != "stopped":
			return fmt.Sprintf("VM %d already running", v.vmid)
		case action == "resume" && v.status != "paused":
			return fmt.Sprintf("VM %d is not paused", v.vmid)
		case (action == "shutdown" || action == "reboot" || action == "reset" || action == "suspend") && v.status != "running":
			return fmt.Sprintf("VM %d not running", v.vmid)
		}
		return ""
	}
	if msg := check(); msg != "" {
		c.fail(500, "%s", msg)
		return
	}
	c.task("qm"+action, strconv.Itoa(v.vmid), func() string {
		if msg := check(); msg != "" {
			return msg
		}
		v.status = to
		return "OK"
	}, nil)
}

// migratePreconditions answers what a migration would need, as qemu-server does: for
// a stopped VM, allowed_nodes and not_allowed_nodes (every other node, the allowed ones
// with no reasons); for a running one, neither. local_disks and local_resources always.
func (c *call) migratePreconditions() {
	s := c.s
	v := c.vmLocked()
	if v == nil {
		return
	}
	running := 0
	if v.status != "stopped" {
		running = 1
	}
	out := map[string]any{"running": running}
	if running == 0 {
		allowed := []string{}
		notAllowed := map[string]any{}
		for _, n := range s.nodes {
			if n.name == v.node {
				continue
			}
			var missing []string
			for _, st := range s.vmStoragesLocked(v) {
				if sto := s.storageLocked(st); sto == nil || !sto.on(n.name) {
					missing = append(missing, st)
				}
			}
			entry := map[string]any{}
			if len(missing) > 0 {
				entry["unavailable_storages"] = missing
			} else if n.online {
				allowed = append(allowed, n.name)
			}
			notAllowed[n.name] = entry
		}
		out["allowed_nodes"], out["not_allowed_nodes"] = allowed, notAllowed
	}
	local := []map[string]any{}
	for _, d := range v.disks() {
		if sto := s.storageLocked(d.storage); d.cdrom || sto == nil || sto.shared {
			continue
		}
		local = append(local, map[string]any{"volid": d.storage + ":" + d.volume, "size": int64(d.sizeGB) << 30, "drivename": d.key, "is_attached": 1})
	}
	res := []string{}
	for k := range v.config {
		if strings.HasPrefix(k, "hostpci") || strings.HasPrefix(k, "usb") {
			res = append(res, k)
		}
	}
	sort.Strings(res)
	out["local_disks"], out["local_resources"], out["mapped-resources"] = local, res, []string{}
	c.ok(out)
}

// vmStoragesLocked lists the storages of a VM's disks (not of its cdroms).
func (s *Server) vmStoragesLocked(v *vm) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range v.disks() {
		if d.cdrom || d.storage == "" || seen[d.storage] {
			continue
		}
		seen[d.storage] = true
		out = append(out, d.storage)
	}
	return out
}

// migrate moves a VM; a running one only with online=1, and local disks of a running
// one only with with-local-disks=1.
func (c *call) migrate() {
	s := c.s
	v := c.vmLocked()
	if v == nil || c.lockedLocked(v) {
		return
	}
	target := c.form.Get("target")
	switch tn := s.nodeLocked(target); {
	case target == "":
		c.paramErr("target", "property is missing and it is not optional")
		return
	case target == v.node:
		c.fail(500, "target is local node.")
		return
	case tn == nil:
		c.fail(500, "no such cluster node '%s'", target)
		return
	case !tn.online:
		c.fail(500, "target node '%s' not online", target)
		return
	}
	running := v.status != "stopped"
	if running && !boolParam(c.form.Get("online")) {
		c.fail(500, "can't migrate running VM without --online")
		return
	}
	for k := range v.config {
		if strings.HasPrefix(k, "hostpci") {
			c.fail(500, "can't migrate VM which uses local devices: %s", k)
			return
		}
	}
	for _, st := range s.vmStoragesLocked(v) {
		sto := s.storageLocked(st)
		if sto == nil || !sto.on(target) {
			c.fail(500, "storage '%s' is not available on node '%s'", st, target)
			return
		}
		if !sto.shared && running && !boolParam(c.form.Get("with-local-disks")) {
			c.fail(500, "can't live migrate attached local disks without with-local-disks option")
			return
		}
	}
	v.lock = "migrate"
	c.task("qmigrate", strconv.Itoa(v.vmid), func() string {
		v.lock = ""
		v.node = target
		return "OK"
	}, func() { v.lock = "" })
}
