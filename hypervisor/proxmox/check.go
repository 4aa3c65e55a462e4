package proxmox

import (
	"context"
	"net/http"
	"sort"
	"strings"

	"github.com/vmplane/vmplane/hypervisor/proxmox/pvehttp"
)

// Privilege is one Proxmox privilege the driver needs, and the ACL paths where holding
// it counts (a role granted on "/" with propagation covers all of them).
type Privilege struct {
	Name  string
	Paths []string
	// For says what needs it.
	For string
}

// RequiredPrivileges are the privileges of the API token that vmplane uses (see the
// package documentation for the role to create).
var RequiredPrivileges = []Privilege{
	{"Sys.Audit", []string{"/", "/nodes"}, "cluster resources, node usage, task status and active tasks"},
	{"VM.Audit", []string{"/", "/vms"}, "machine configs, status, usage, firewall rules"},
	{"VM.PowerMgmt", []string{"/", "/vms"}, "power actions"},
	{"VM.Config.CPU", []string{"/", "/vms"}, "resizing cpu"},
	{"VM.Config.Memory", []string{"/", "/vms"}, "resizing memory"},
	{"VM.Config.Options", []string{"/", "/vms"}, "names and tags"},
	{"VM.Config.Network", []string{"/", "/vms"}, "network interfaces and the firewall (rules, options, the IP set ipfilter-net0 with the machine's addresses)"},
	{"VM.Config.Disk", []string{"/", "/vms"}, "adding and growing disks"},
	{"VM.Config.Cloudinit", []string{"/", "/vms"}, "create and reinstall"},
	{"VM.Migrate", []string{"/", "/vms"}, "migration"},
	{"VM.Clone", []string{"/", "/vms"}, "cloning templates"},
	{"VM.Allocate", []string{"/", "/vms"}, "create, destroy, reinstall, restore"},
	{"VM.Backup", []string{"/", "/vms"}, "backups and restores"},
	{"VM.Snapshot", []string{"/", "/vms"}, "snapshots, their rollback and deletion"},
	{"Datastore.Audit", []string{"/", "/storage"}, "storages and their backups"},
	{"Datastore.AllocateSpace", []string{"/", "/storage"}, "disks, clones, backups"},
	// The ISO library, media and rescue (a restore to a new machine needs nothing
	// more: VM.Allocate, VM.Backup and Datastore.AllocateSpace above).
	{"VM.Config.CDROM", []string{"/", "/vms"}, "mounting and ejecting ISO images"},
	{"Datastore.AllocateTemplate", []string{"/", "/storage"}, "fetching (download-url), uploading and deleting ISO images"},
	{"Sys.Modify", []string{"/"}, "download-url of ISO images"},
}

// CheckReport is what Check found.
type CheckReport struct {
	// Version is the Proxmox VE version that answered.
	Version string
	// Missing are the required privileges the token does not hold where they count.
	Missing []Privilege
}

// Check tests the connection and the token: GET /version (reachable, TLS, token
// accepted) and GET /access/permissions (the token's effective privileges), and reports
// the required privileges that are missing. An error means the check could not be made.
func (d *Driver) Check(ctx context.Context) (CheckReport, error) {
	var rep CheckReport
	var v struct {
		Version string `json:"version"`
	}
	if err := d.get(pvehttp.WithoutRetry(ctx), "/version", nil, &v); err != nil {
		return rep, err
	}
	rep.Version = v.Version
	var perms map[string]map[string]int
	if err := d.call(ctx, http.MethodGet, "/access/permissions", nil, nil, &perms); err != nil {
		return rep, d.apiError(ctx, err)
	}
	for _, p := range RequiredPrivileges {
		held := false
		for _, path := range p.Paths {
			if _, ok := perms[path][p.Name]; ok {
				held = true
			}
		}
		if !held {
			rep.Missing = append(rep.Missing, p)
		}
	}
	sort.SliceStable(rep.Missing, func(i, j int) bool { return strings.Compare(rep.Missing[i].Name, rep.Missing[j].Name) < 0 })
	return rep, nil
}
