package pvefake

// AllPrivileges are the privileges the fake's token holds on "/" unless
// Config.Permissions says otherwise: everything vmplane's driver uses.
var AllPrivileges = []string{"Sys.Audit", "VM.Audit", "VM.PowerMgmt", "VM.Config.CPU", "VM.Config.Memory",
	"VM.Config.Options", "VM.Config.Network", "VM.Config.Disk", "VM.Config.Cloudinit", "VM.Migrate", "VM.Clone",
	"VM.Allocate", "VM.Backup", "VM.Snapshot", "Datastore.Audit", "Datastore.AllocateSpace",
	"VM.Config.CDROM", "Datastore.AllocateTemplate", "Sys.Modify"}

// permissions answers GET /access/permissions for the API token: path → privilege →
// 1 (propagated), as Proxmox does.
func (c *call) permissions() {
	perms := c.s.cfg.Permissions
	if perms == nil {
		perms = map[string][]string{"/": AllPrivileges}
	}
	out := map[string]map[string]int{}
	for path, privs := range perms {
		m := map[string]int{}
		for _, p := range privs {
			m[p] = 1
		}
		out[path] = m
	}
	c.ok(out)
}
