package hypervisor

import "regexp"

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
)

// vmName is Proxmox's format of a VM name (dns-name): dot-separated labels of 1..63
// letters, digits and inner dashes.
var vmName = regexp.MustCompile(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$`)

// ValidVMName reports whether Proxmox accepts name as a VM's name.
func ValidVMName(name string) bool { return vmName.MatchString(name) }

// VMNameRule says what ValidVMName takes, as the message refusing another name.
const VMNameRule = "must be a DNS name: letters, digits, '-' and '.', at most 63 per label"
