package proxmox

import (
	"context"
	"errors"
	"net/url"
	"sort"
	"strconv"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// SetFirewall makes the machine's rule list exactly rules, in order, and enables its
// firewall.
//
// Proxmox addresses rules by position only, inserts every new rule at the top, and
// shifts positions on every insert and delete, so appending a rule set is not
// idempotent: a retried or half-done push would leave rules twice. The push therefore
// converges (see convergeRules): it reads Proxmox's list, compares it with ours, and
// updates, inserts, deletes or moves one rule at a time, each write guarded by the
// digest of the list it was computed from, until the two are equal. Any number of
// retries, restarts or partial failures ends with exactly the tenant's rules, and a
// push of what is already there writes nothing. Finally firewall/options enable=1 with
// the policies (a non-empty set: policy_in=DROP, policy_out=ACCEPT, Proxmox's own
// defaults, so what no in rule accepts is dropped; an empty set: both ACCEPT, no
// rules = open) in one digest-guarded write of what differs, and firewall=1 on every
// netN (one digest-guarded config write), because Proxmox applies VM rules only when
// both are on. The firewall stays on for an empty set: the machine's ipfilter-net0,
// if vmplane addressed it, is enforced only while it is.
func (d *Driver) SetFirewall(ctx context.Context, ref hypervisor.Ref, rules []hypervisor.FirewallRule) error {
	if err := hypervisor.ValidateFirewallRules(rules); err != nil {
		return err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return err
	}
	want := make([]pveconf.RuleSpec, len(rules))
	for i, r := range rules {
		want[i] = pveconf.SpecOf(r)
	}
	if err := d.convergeRules(ctx, l, want); err != nil {
		return err
	}
	// No rules = open: an empty set reopens both directions, keeping the firewall
	// on so the machine's ipfilter-net0 stays enforced.
	opts := map[string]string{"enable": "1", "policy_in": policyAccept, "policy_out": policyAccept}
	if len(rules) > 0 {
		opts["policy_in"] = policyDrop
	}
	if err := d.setFirewallOptions(ctx, l, opts); err != nil {
		return err
	}
	return d.nicFirewallOn(ctx, l)
}

// modifiedAttempts bounds how often a read-modify-write starts over because someone
// changed the machine on Proxmox between its read and its write.
const modifiedAttempts = 3

// convergeRules makes the VM's rule list want (see SetFirewall): one read, one
// digest-guarded write, until equal. A write that collides with a concurrent edit is
// computed again from a fresh read, up to modifiedAttempts collisions, then the push
// fails with conflict.
func (d *Driver) convergeRules(ctx context.Context, l *located, want []pveconf.RuleSpec) error {
	base := l.path() + "/firewall/rules"
	collisions, steps, limit := 0, 0, -1
	for {
		var list []pveconf.Rule
		if err := d.get(ctx, base, nil, &list); err != nil {
			return err
		}
		sort.SliceStable(list, func(i, j int) bool { return list[i].Pos < list[j].Pos })
		cur := make([]pveconf.RuleSpec, len(list))
		digest := ""
		for i, r := range list {
			cur[i], digest = r.Spec(), r.Digest
		}
		if limit < 0 {
			// Each rule is updated, inserted or deleted at most once and moved at most once.
			limit = 2*(len(cur)+len(want)) + 2
		}
		step, more := pveconf.NextRuleStep(cur, want)
		if !more {
			return nil
		}
		if steps >= limit {
			return hypervisor.NewError(errModified, "the firewall rules of machine %d keep changing on Proxmox while they are pushed; push them again", l.vmid)
		}
		var body map[string]any
		var err error
		switch step.Op {
		case "update":
			body = step.Spec.Params(step.From)
		case "insert":
			body = step.Spec.Params(nil)
		case "move":
			body = map[string]any{"moveto": step.To}
		}
		if digest != "" && body != nil {
			body["digest"] = digest
		}
		pos := base + "/" + strconv.Itoa(step.Pos)
		switch step.Op {
		case "insert":
			err = d.post(ctx, base, body, nil)
		case "delete":
			var q url.Values
			if digest != "" {
				q = url.Values{"digest": {digest}}
			}
			err = d.del(ctx, pos, q, nil)
		default:
			err = d.put(ctx, pos, body, nil)
		}
		if errors.Is(err, errModified) {
			if collisions++; collisions >= modifiedAttempts {
				return hypervisor.NewError(errModified, "the firewall rules of machine %d changed on Proxmox %d times while they were pushed; push them again", l.vmid, collisions)
			}
			continue
		}
		if err != nil {
			return err
		}
		steps++
	}
}
