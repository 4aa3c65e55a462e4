package hypervisor

import (
	"regexp"

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
