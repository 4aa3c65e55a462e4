// Package planflags holds the flags of `vmplane plan create` and `vmplane plan update`,
// read into the Go client's PlanSpec and PlanChange, and finds the plan a command
// line names by id or name, and the location a --location names.
package planflags

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/client"
)

// Flags are a plan's flags as given.
type Flags struct {
	name                                         string
	cores, ipv4, ipv6, traffic, rate, bkps, snap int64
	memory, disk                                 string
	templates                                    []string
	location                                     string
}

// Add declares the flags on cmd; update, on a change, adds --name and says how a
// bound is cleared.
func (f *Flags) Add(cmd *cobra.Command, update bool) {
	fl := cmd.Flags()
	if update {
		fl.StringVar(&f.name, "name", "", "the new name")
	}
	or := func(what string) string {
		if update {
			return "; -1: " + what
		}
		return ""
	}
	fl.Int64Var(&f.cores, "cores", 0, "CPU cores")
	fl.StringVar(&f.memory, "memory", "", "memory, in MB or with a unit (2G)")
	fl.StringVar(&f.disk, "disk", "", "disk size, in GB or with a unit (1T)")
	fl.Int64Var(&f.ipv4, "ipv4", 1, "IPv4 addresses per machine (recorded, not yet allocated)")
	fl.Int64Var(&f.ipv6, "ipv6-prefix", 0, "length of each machine's IPv6 prefix, e.g. 64 (recorded, not yet allocated"+or("none")+")")
	fl.Int64Var(&f.traffic, "traffic-gb", 0, "monthly traffic allowance in GB (recorded, not yet counted"+or("unmetered")+")")
	fl.Int64Var(&f.rate, "rate-mbps", 0, "network rate limit in Mbit/s"+or("none"))
	fl.Int64Var(&f.bkps, "backups", 0, "backups on demand per machine"+or("no bound"))
	fl.Int64Var(&f.snap, "snapshots", 0, "snapshots per machine"+or("no bound"))
	tpl := "a template (id or name) the plan allows, repeatable; none: every template"
	if update {
		tpl += " (--template '' allows every template again)"
	}
	fl.StringSliceVar(&f.templates, "template", nil, tpl)
	fl.StringVar(&f.location, "location", "", "the location (id or name) the plan's machines are made in (default: the default one)")
}

// LocationRef is the --location given (the caller reads it with FindLocation), "" when
// none was.
func (f *Flags) LocationRef(cmd *cobra.Command) string {
	if !changed(cmd, "location") {
		return ""
	}
	return f.location
}

func changed(cmd *cobra.Command, name string) bool {
	fl := cmd.Flags().Lookup(name)
	return fl != nil && fl.Changed
}

// sizes are --memory and --disk, 0 when not given.
func (f *Flags) sizes() (memory, disk int64, err error) {
	if f.memory != "" {
		if memory, err = cmdline.ParseSize(f.memory, "M"); err != nil {
			return 0, 0, cmdline.Usagef("--memory: %v", err)
		}
	}
	if f.disk != "" {
		if disk, err = cmdline.ParseSize(f.disk, "G"); err != nil {
			return 0, 0, cmdline.Usagef("--disk: %v", err)
		}
	}
	return memory, disk, nil
}

// Spec is the plan to create, named name; cores, memory and disk are needed.
func (f *Flags) Spec(cmd *cobra.Command, name string) (client.PlanSpec, error) {
	memory, disk, err := f.sizes()
	if err != nil {
		return client.PlanSpec{}, err
	}
	if !changed(cmd, "cores") || memory == 0 || disk == 0 {
		return client.PlanSpec{}, cmdline.Usagef("--cores, --memory and --disk are needed")
	}
	opt := func(flag string, v int64) *int64 {
		if !changed(cmd, flag) {
			return nil
		}
		return &v
	}
	return client.PlanSpec{Name: name, CPUCores: f.cores, MemoryMB: memory, DiskGB: disk, AllowedTemplates: f.templates,
		IPv4: opt("ipv4", f.ipv4), IPv6Prefix: opt("ipv6-prefix", f.ipv6), TrafficGB: opt("traffic-gb", f.traffic),
		RateMbps: opt("rate-mbps", f.rate), Backups: opt("backups", f.bkps), Snapshots: opt("snapshots", f.snap)}, nil
}

// Change is the change the flags given ask for: a bound given as -1 is cleared.
func (f *Flags) Change(cmd *cobra.Command) (client.PlanChange, error) {
	var ch client.PlanChange
	memory, disk, err := f.sizes()
	if err != nil {
		return ch, err
	}
	given := false
	set := func(flag string, v int64, clearable bool) client.Optional[int64] {
		switch {
		case !changed(cmd, flag):
			return client.Optional[int64]{}
		case clearable && v < 0:
			given = true
			return client.Null[int64]()
		}
		given = true
		return client.Set(v)
	}
	if changed(cmd, "name") {
		ch.Name, given = client.Set(f.name), true
	}
	if memory > 0 {
		ch.MemoryMB, given = client.Set(memory), true
	}
	if disk > 0 {
		ch.DiskGB, given = client.Set(disk), true
	}
	ch.CPUCores, ch.IPv4 = set("cores", f.cores, false), set("ipv4", f.ipv4, false)
	ch.IPv6Prefix, ch.TrafficGB = set("ipv6-prefix", f.ipv6, true), set("traffic-gb", f.traffic, true)
	ch.RateMbps, ch.Backups, ch.Snapshots = set("rate-mbps", f.rate, true), set("backups", f.bkps, true), set("snapshots", f.snap, true)
	if changed(cmd, "location") {
		given = true // the caller sets it, once FindLocation has read it
	}
	if changed(cmd, "template") {
		t := []string{}
		for _, s := range f.templates {
			if s != "" {
				t = append(t, s)
			}
		}
		ch.AllowedTemplates, given = client.Set(t), true
	}
	if !given {
		return ch, cmdline.Usagef("nothing to change: give --name, a size, a bound or --location")
	}
	return ch, nil
}

// ErrNoPlan is Find's answer for a reference that names no plan.
var ErrNoPlan = errors.New("no plan has that id or name")

// Find is the plan whose id, or else whose name (ignoring case), is ref.
func Find(ctx context.Context, c *client.Client, ref string) (*client.Plan, error) {
	var plans []client.Plan
	for pl, err := range c.Plans(ctx, client.ListOptions{}) {
		if err != nil {
			return nil, err
		}
		if pl.ID == ref {
			return &pl, nil
		}
		plans = append(plans, pl)
	}
	for _, pl := range plans {
		if strings.EqualFold(strings.TrimSpace(pl.Name), strings.TrimSpace(ref)) {
			return &pl, nil
		}
	}
	return nil, ErrNoPlan
}

// FindLocation is the id of the location ref names: "default", a location's id, or
// else its name (ignoring case); one that names none is a usage error. It is how
// every --location of the verbs is read. A tenant user may not read the operators'
// list of locations (403): its own, the client area's, is read instead, so that a
// tenant's machine create --location takes a name too.
func FindLocation(ctx context.Context, c *client.Client, ref string) (string, error) {
	if strings.EqualFold(ref, "default") {
		return "default", nil
	}
	type named struct{ id, name string }
	var all []named
	for l, err := range c.Locations(ctx, client.ListOptions{}) {
		if errors.Is(err, client.ErrForbidden) && len(all) == 0 {
			all = nil
			for o, err := range c.ClientLocations(ctx, client.ListOptions{}) {
				if err != nil {
					return "", err
				}
				all = append(all, named{o.ID, o.Name})
			}
			break
		}
		if err != nil {
			return "", err
		}
		all = append(all, named{l.ID, l.Name})
	}
	var byName []string
	for _, l := range all {
		if l.id == ref {
			return l.id, nil
		}
		if strings.EqualFold(l.name, ref) {
			byName = append(byName, l.id)
		}
	}
	if len(byName) == 1 {
		return byName[0], nil
	}
	return "", cmdline.Usagef("--location %q: no location has that id or name (see 'vmplane location list', or 'vmplane location offered' as a tenant's user)", ref)
}
