package proxmox

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"

	"github.com/vmplane/vmplane/hypervisor"
)

// consoleTasks are the task types of console sessions: they run as long as someone
// watches the machine's console and change nothing, so WaitIdle does not wait for them.
var consoleTasks = []string{"vncproxy", "termproxy", "spiceproxy", "vncshell"}

// WaitIdle implements hypervisor.TaskFollower: it polls GET /nodes/{node}/tasks with
// source=active and the machine's vmid, every TaskPollInterval, until no task but a
// console's is running on it. A task runs on the node it was started on (a
// migration's on the source node, even once the machine is on the target), so it
// looks on the node the caller believes the machine is on (ref.Node, the record's)
// and, when the machine is now elsewhere, on that node too; an offline node is
// skipped, as nothing vmplane could wait for runs there. A task started on a third
// node (two migrations in a row, the second by someone else) is not seen: the record
// names where vmplane last put the machine, and /cluster/resources where it is.
func (d *Driver) WaitIdle(ctx context.Context, ref hypervisor.Ref) error {
	if ref.VMID == 0 {
		return nil // nothing was created on the hypervisor, so nothing runs there
	}
	for {
		busy, err := d.busy(ctx, ref)
		if err != nil || !busy {
			return err
		}
		if err := sleep(ctx, d.cfg.TaskPollInterval); err != nil {
			return err
		}
	}
}

// busy reports whether a task other than a console's is running on the machine on
// ref.Node or on the node it is on now.
func (d *Driver) busy(ctx context.Context, ref hypervisor.Ref) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, hypervisor.ContextError(err)
	}
	view, err := d.resources(ctx)
	if err != nil {
		return false, err
	}
	nodes := []string{ref.Node}
	if l, err := view.locate(ref.VMID); err == nil && l.node != ref.Node {
		nodes = append(nodes, l.node)
	} else if err != nil && !errors.Is(err, hypervisor.ErrMachineNotFound) {
		return false, err
	}
	for _, node := range nodes {
		if node == "" || !view.online(node) {
			continue
		}
		var tasks []struct{ Type string }
		q := url.Values{"source": {"active"}, "vmid": {strconv.Itoa(ref.VMID)}}
		if err := d.get(ctx, "/nodes/"+url.PathEscape(node)+"/tasks", q, &tasks); err != nil {
			return false, err
		}
		for _, t := range tasks {
			if !slices.Contains(consoleTasks, t.Type) {
				return true, nil
			}
		}
	}
	return false, nil
}

// Checked by the compiler: a misnamed method would silently turn the following off.
var _ hypervisor.TaskFollower = (*Driver)(nil)
