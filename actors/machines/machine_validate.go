package machines

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/actors/machines/media"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// Bounds of machine resources. Generous for a hosting cluster, tight enough to catch
// a unit mistake (memory in bytes, disk in MB). Each is written here only: the API
// document and the edge's check of a request body read them through the limits
// httpedge names (the `openapi:"limit=machine.cores"` tags), and the checks below and
// in tenants read them directly. The drivers check only what the hypervisor refuses.
const (
	MinCores, MaxCores       = 1, 128
	MinMemoryMB, MaxMemoryMB = 128, 4 << 20 // 4 TiB
	MinDiskGB, MaxDiskGB     = 1, 64 << 10  // 64 TiB
	MaxVLAN                  = 4094
	MaxRateMbps              = 100_000
	// MinNameLen and MaxNameLen bound a machine's name, a hostname label (RFC 1123).
	MinNameLen, MaxNameLen = 1, 63
	// MinPasswordLen and MaxPasswordLen bound the password cloud-init sets on a
	// create or a reinstall.
	MinPasswordLen, MaxPasswordLen = 8, 128
	// MaxSSHKeys and MaxSSHKeyLen bound the public keys cloud-init installs.
	MaxSSHKeys, MaxSSHKeyLen = 32, 8192
)

// ValidName reports whether name is a valid machine name: a hostname of
// MinNameLen..MaxNameLen letters, digits, dots and dashes, each of its labels starting
// and ending with a letter or digit, so that every hypervisor takes it.
func ValidName(name string) bool {
	return len(name) >= MinNameLen && len(name) <= MaxNameLen && hypervisor.ValidVMName(name)
}

var (
	interfaceRE = regexp.MustCompile(`^net[0-9]{1,2}$`)
	storageRE   = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9._-]{0,63}$`)
)

// NameFieldError is the answer's line for a name that is no valid machine name.
func NameFieldError() apierr.FieldError {
	return apierr.Field("name", "must be a hostname: letters, digits, dots and dashes, %d..%d characters", MinNameLen, MaxNameLen)
}

// PasswordFieldError is the answer's line for a password out of bounds.
func PasswordFieldError() apierr.FieldError {
	return apierr.Field("password", "must be %d..%d characters", MinPasswordLen, MaxPasswordLen)
}

// PowerActionAliases maps the names other panels use onto Proxmox's power actions.
var PowerActionAliases = map[string]hypervisor.PowerAction{
	"restart": hypervisor.ActionReboot, "poweroff": hypervisor.ActionStop, "kill": hypervisor.ActionStop,
	"boot": hypervisor.ActionStart,
}

// ParsePowerAction accepts a power action or an alias of one; anything else is 400
// listing the valid actions.
func ParsePowerAction(s string) (hypervisor.PowerAction, error) {
	if a := hypervisor.PowerAction(s); a.Known() {
		return a, nil
	}
	if a, ok := PowerActionAliases[s]; ok {
		return a, nil
	}
	names := make([]string, len(hypervisor.PowerActions))
	for i, a := range hypervisor.PowerActions {
		names[i] = string(a)
	}
	e := apierr.Invalid(apierr.Field("action", "must be one of %s", strings.Join(names, ", ")))
	e.Allowed = names
	return "", e
}

// validate checks an operation's parameters before any actor is asked.
func (op Operation) validate() error {
	var f []apierr.FieldError
	switch op.Type {
	case OpPower:
		if _, err := ParsePowerAction(string(op.Action)); err != nil {
			return err
		}
	case OpMigrate:
		if op.TargetNode == "" {
			f = append(f, apierr.Field("target_node", "is required"))
		}
	case OpConfig:
		c := op.Config
		if c == nil || (c.Name == nil && c.CPUCores == nil && c.MemoryMB == nil) {
			return apierr.Invalid(apierr.Field("body", "name, cpu_cores or memory_mb is required"))
		}
		if c.Name != nil && !ValidName(*c.Name) {
			f = append(f, NameFieldError())
		}
		if c.CPUCores != nil && (*c.CPUCores < MinCores || *c.CPUCores > MaxCores) {
			f = append(f, apierr.Field("cpu_cores", "must be %d..%d", MinCores, MaxCores))
		}
		if c.MemoryMB != nil && (*c.MemoryMB < MinMemoryMB || *c.MemoryMB > MaxMemoryMB) {
			f = append(f, apierr.Field("memory_mb", "must be %d..%d", MinMemoryMB, MaxMemoryMB))
		}
	case OpNetwork:
		if len(op.Interfaces) == 0 {
			return apierr.Invalid(apierr.Field("interfaces", "must name at least one interface"))
		}
		seen := map[string]bool{}
		for i, ic := range op.Interfaces {
			p := "interfaces[" + strconv.Itoa(i) + "]."
			if !interfaceRE.MatchString(ic.ID) {
				f = append(f, apierr.Field(p+"id", "must be net0..net99"))
			} else if seen[ic.ID] {
				f = append(f, apierr.Field(p+"id", "names %s twice", ic.ID))
			}
			seen[ic.ID] = true
			if ic.Bridge != nil && !storageRE.MatchString(*ic.Bridge) {
				f = append(f, apierr.Field(p+"bridge", "must be a bridge name such as vmbr0"))
			}
			if ic.VLAN != nil && (*ic.VLAN < 0 || *ic.VLAN > MaxVLAN) {
				f = append(f, apierr.Field(p+"vlan", "must be 0..%d (0: untagged)", MaxVLAN))
			}
			if ic.RateMbps != nil && (*ic.RateMbps < 0 || *ic.RateMbps > MaxRateMbps) {
				f = append(f, apierr.Field(p+"rate_mbps", "must be 0..%d (0: unlimited)", MaxRateMbps))
			}
		}
	case OpAddDisk:
		if op.DiskSizeGB < MinDiskGB || op.DiskSizeGB > MaxDiskGB {
			f = append(f, apierr.Field("size_gb", "must be %d..%d", MinDiskGB, MaxDiskGB))
		}
		if op.DiskStorage != "" && !storageRE.MatchString(op.DiskStorage) {
			f = append(f, apierr.Field("storage", "must be a storage name such as local-lvm"))
		}
	case OpReinstall:
		r := op.Reinstall
		if r == nil || r.TemplateID == "" {
			return apierr.Invalid(apierr.Field("template_id", "is required"))
		}
		if r.Password != "" && (len(r.Password) < MinPasswordLen || len(r.Password) > MaxPasswordLen) {
			f = append(f, PasswordFieldError())
		}
		for i, k := range r.SSHKeys {
			if !strings.HasPrefix(k, "ssh-") && !strings.HasPrefix(k, "ecdsa-") && !strings.HasPrefix(k, "sk-") {
				f = append(f, apierr.Field("ssh_keys["+strconv.Itoa(i)+"]", "must be an OpenSSH public key"))
			}
		}
	case OpBackup, OpSnapshot, OpSnapshotRollback, OpSnapshotDelete, OpRestore:
		return validateMachineOp(op)
	case OpMountISO, OpEjectISO, OpBootOrder, OpRescue:
		return media.Validate(op.Type, op.Change)
	case OpDestroy, OpCreate:
	case OpResize:
		if op.Config == nil && op.DiskGrowGB <= 0 && op.PlanID == nil {
			return apierr.Invalid(apierr.Field("body", "nothing to resize"))
		}
	default:
		return apierr.New(apierr.ErrInvalidRequest, "unknown operation %q", op.Type)
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// checkAgainst checks an operation against the machine it is for, as its record
// stands: the state table (409 invalid_state), a migration to where the machine is
// already (400), a disk to grow that the machine does not have (409). Validate first:
// checkAgainst expects a valid operation.
func (op Operation) checkAgainst(m *Machine) error {
	if !allowed(m.Status, op) {
		what := op.Type
		if op.Type == OpPower {
			what = string(op.Action)
		} else if op.Type == OpMigrate && m.Status == StatusRunning {
			what = "offline migrate"
		}
		return apierr.New(apierr.ErrInvalidState, "%s is not allowed while the machine is %s", what, m.Status)
	}
	switch op.Type {
	case OpMigrate:
		if op.TargetNode == m.Node {
			return apierr.Invalid(apierr.Field("target_node", "the machine is already on %s", m.Node))
		}
	case OpResize:
		if op.DiskGrowGB > 0 && len(m.Disks) == 0 {
			return ErrNoDiskToGrow()
		}
	case OpRescue, OpMountISO, OpEjectISO, OpBootOrder:
		if err := media.Check(op.Type, op.Change, m.Rescue); err != nil {
			return err
		}
	}
	return checkMachineOp(op, m)
}

// ErrNoDiskToGrow refuses a resize that grows the disk of a machine with none (a
// Proxmox VM whose disks were all detached).
func ErrNoDiskToGrow() error {
	return apierr.New(apierr.ErrInvalidState, "machine has no disk to grow")
}
