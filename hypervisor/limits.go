package hypervisor

import (
	"regexp"
	"slices"
	"strings"

	"github.com/vmplane/vmplane/apierr"
)

// What Proxmox VE itself refuses of a machine's shape (qemu-server's parameter schema,
// as pvefake answers it); both drivers check it before they ask, the sim as a Proxmox
// node would, so that a refusal is a typed 400 rather than a failed call. Cores are
// 1..1024 and memory at least 16 MiB, with no upper bound: a VM with more vCPUs or
// memory than its node has fails when it starts, not when it is configured. A disk is
// allocated or grown to whole GiB, at least one.
//
// The API's own bounds (actors/machines: MinCores, MaxCores, ...) are its choice and
// at least as tight, so that a request the API accepts never fails here.
const (
	MinCores, MaxCores = 1, 1024
	MinMemoryMB        = 16
	MinDiskGB          = 1
	// MinVMID and MaxVMID bound a vmid, as Proxmox's /cluster/nextid does.
	MinVMID, MaxVMID = 100, 999_999_999
	// MaxInterfaces is how many network interfaces a machine has at most: Proxmox
	// names them net0..net31. MaxInterfaceIDLen bounds such a name.
	MaxInterfaces     = 32
	MaxInterfaceIDLen = 8
	// MaxNameLen bounds the name of a node, a storage or a bridge that a request names
	// (Proxmox's own are shorter): a longer one is refused before it is looked up.
	MaxNameLen = 64
)

// vmName is Proxmox's format of a VM name (dns-name): dot-separated labels of 1..63
// letters, digits and inner dashes.
var vmName = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// ValidVMName reports whether Proxmox accepts name as a VM's name.
func ValidVMName(name string) bool { return vmName.MatchString(name) }

// VMNameRule says what ValidVMName takes, as the message refusing another name.
const VMNameRule = "must be a DNS name: letters, digits, '-' and '.', at most 63 per label"

// CheckCreate checks what Proxmox refuses of a create's own values and fills in the
// defaults a Proxmox clone keeps from its template when the caller names none (1 core,
// 1 GiB): both drivers create through it.
func CheckCreate(spec *CreateSpec) error {
	invalid := func(field, format string, args ...any) error {
		return apierr.Invalid(apierr.Field(field, format, args...))
	}
	if spec.VMID != 0 && (spec.VMID < MinVMID || spec.VMID > MaxVMID) {
		return invalid("vmid", "must be %d..%d", MinVMID, MaxVMID)
	}
	if spec.Name != "" && !ValidVMName(spec.Name) {
		return invalid("name", VMNameRule)
	}
	if spec.CPUCores == 0 {
		spec.CPUCores = 1
	}
	if spec.MemoryMB == 0 {
		spec.MemoryMB = 1024
	}
	if spec.CPUCores < MinCores || spec.CPUCores > MaxCores {
		return invalid("cpu_cores", "must be %d..%d", MinCores, MaxCores)
	}
	if spec.MemoryMB < MinMemoryMB {
		return invalid("memory_mb", "must be at least %d", MinMemoryMB)
	}
	if spec.DiskGB < 0 {
		return invalid("disk_gb", "must be 0 (the template's size) or more")
	}
	return nil
}

// What Proxmox takes as a snapshot's name (pve-snapshot-name: the pve-configid format,
// a letter and then at least one more letter, digit, '_' or '-', at most 40 in all),
// besides the names it keeps for itself: "current" (the machine as it is, in every
// snapshot list) and "pending" (any case). The description is ours to bound: Proxmox
// keeps it in the machine's config file, as it keeps the machine's own description,
// which it bounds at 8 KiB.
const (
	MinSnapshotNameLen, MaxSnapshotNameLen = 2, 40
	MaxSnapshotDescriptionLen              = 8192
	// SnapshotCurrent is the name Proxmox's snapshot list gives the machine as it is.
	SnapshotCurrent = "current"
)

// snapshotName is pve-configid's pattern; the length bounds are checked apart.
var snapshotName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]+$`)

// SnapshotNameRule says what ValidSnapshotName takes, as the message refusing another
// name.
const SnapshotNameRule = "must start with a letter, then letters, digits, '_' and '-', 2 to 40 in all, and not be current or pending"

// ValidSnapshotName reports whether Proxmox accepts name for a new snapshot.
func ValidSnapshotName(name string) bool {
	return len(name) >= MinSnapshotNameLen && len(name) <= MaxSnapshotNameLen && snapshotName.MatchString(name) &&
		name != SnapshotCurrent && !strings.EqualFold(name, "pending")
}

// CheckSnapshot checks what Proxmox refuses of a new snapshot's own values (its name)
// and the bound of its description: both drivers take snapshots through it.
func CheckSnapshot(spec SnapshotSpec) error {
	if !ValidSnapshotName(spec.Name) {
		return apierr.Invalid(apierr.Field("name", SnapshotNameRule))
	}
	if len(spec.Description) > MaxSnapshotDescriptionLen {
		return apierr.Invalid(apierr.Field("description", "must be at most %d bytes", MaxSnapshotDescriptionLen))
	}
	return nil
}

// CheckSnapshotName answers ErrSnapshotNotFound for a name no snapshot can have, so a
// rollback or delete of one is refused as the unknown snapshot it is, before the
// hypervisor is asked.
func CheckSnapshotName(vmid int, name string) error {
	if !ValidSnapshotName(name) {
		return NewError(ErrSnapshotNotFound, "machine %d has no snapshot %q", vmid, name)
	}
	return nil
}

// SortBackups puts backups oldest first, by id within one second (archives' times are
// whole seconds): the order of Driver.Backups and Inventory.Backups.
func SortBackups(list []Backup) {
	slices.SortStableFunc(list, func(a, b Backup) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// SortSnapshots puts snapshots oldest first. Creation times are whole seconds on
// Proxmox, so two taken within a second tie; then a snapshot comes after its
// ancestors, and otherwise by name, so that the order is the same on every read.
func SortSnapshots(list []Snapshot) {
	parent := make(map[string]string, len(list))
	for _, s := range list {
		parent[s.Name] = s.Parent
	}
	depth := func(name string) int {
		n := 0
		for p := parent[name]; p != "" && n <= len(list); p = parent[p] {
			n++
		}
		return n
	}
	slices.SortStableFunc(list, func(a, b Snapshot) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		if c := depth(a.Name) - depth(b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}
