// Package cards holds how the command-line client prints one record of each kind, a
// card: the table "vmplane <kind> show" (and each verb that answers one record)
// writes, or the record's JSON or YAML with -o.
package cards

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// Alert prints an alert event: its table, or its JSON or YAML with -o.
func Alert(p output.Printer, al *client.Alert) error {
	return p.Print(al, func(w *tabwriter.Writer) {
		output.Field(w, "ID", al.ID)
		output.Field(w, "Status", al.Status)
		output.Field(w, "Severity", al.Severity)
		output.Field(w, "Kind", al.Kind)
		output.Field(w, "Target", al.TargetType+" "+al.TargetID)
		output.Field(w, "Tenant", output.Str(al.TenantID))
		output.Field(w, "Machine", output.Str(al.MachineID))
		output.Field(w, "Message", al.Message)
		output.Field(w, "Started", output.When(al.StartedAt))
		output.Field(w, "Acknowledged", output.WhenPtr(al.AcknowledgedAt))
		output.Field(w, "Resolved", output.WhenPtr(al.ResolvedAt))
	})
}

// Rule prints a firewall rule: its table, or its JSON or YAML with -o.
func Rule(p output.Printer, r *client.FirewallRule) error {
	return p.Print(r, func(w *tabwriter.Writer) {
		output.Field(w, "ID", r.ID)
		output.Field(w, "Position", output.Num(r.Position))
		machine := "all the tenant's"
		if r.MachineID != nil {
			machine = *r.MachineID
		}
		output.Field(w, "Machine", machine)
		output.Field(w, "Direction", r.Direction)
		output.Field(w, "Action", r.Action)
		output.Field(w, "Protocol", r.Protocol)
		output.Field(w, "Port", output.Str(r.Port))
		output.Field(w, "Source", output.Str(r.Source))
		output.Field(w, "Destination", output.Str(r.Destination))
		output.Field(w, "Enabled", output.YesNo(r.Enabled))
		output.Field(w, "Comment", output.OrDash(r.Comment))
	})
}

// Check prints a health check: its table, or its JSON or YAML with -o.
func Check(p output.Printer, hc *client.HealthCheck) error {
	return p.Print(hc, func(w *tabwriter.Writer) {
		output.Field(w, "ID", hc.ID)
		output.Field(w, "Name", hc.Name)
		output.Field(w, "Type", hc.Type)
		output.Field(w, "Target", hc.Target)
		output.Field(w, "Interval", output.Num(hc.IntervalS)+"s")
		output.Field(w, "Timeout", output.Num(hc.TimeoutMS)+"ms")
		expected := "any 2xx or 3xx"
		if hc.ExpectedStatus != 0 {
			expected = output.Num(hc.ExpectedStatus)
		}
		if hc.Type == client.CheckHTTP {
			output.Field(w, "Expected status", expected)
		}
		output.Field(w, "Failure threshold", output.Num(hc.FailureThreshold))
		output.Field(w, "Machine", output.Str(hc.MachineID))
		output.Field(w, "Tenant", output.Str(hc.TenantID))
		output.Field(w, "Enabled", output.YesNo(hc.Enabled))
		output.Field(w, "Status", hc.Last.Status)
		output.Field(w, "Checked", output.WhenPtr(hc.Last.CheckedAt))
		output.Field(w, "Latency ms", Latency(hc.Last.CheckedAt != nil, hc.Last.LatencyMS))
		output.Field(w, "Failures in a row", output.Num(hc.Last.ConsecutiveFailures))
		output.Field(w, "Error", output.Str(hc.Last.Error))
		output.Field(w, "Created", output.When(hc.CreatedAt))
	})
}

// Latency is a probe's latency in milliseconds, "-" before the first probe.
func Latency(probed bool, ms float64) string {
	if !probed {
		return "-"
	}
	return strconv.FormatFloat(ms, 'f', 1, 64)
}

// Machine prints a machine: its table, or its JSON or YAML with -o.
func Machine(p output.Printer, m *client.Machine) error {
	return p.Print(m, func(w *tabwriter.Writer) { MachineFields(w, m) })
}

// MachineFields writes a machine's fields into a table being written: its card, or the
// answer of a create, which adds the task that provisions it.
func MachineFields(w *tabwriter.Writer, m *client.Machine) {
	output.Field(w, "ID", m.ID)
	output.Field(w, "Name", m.Name)
	output.Field(w, "VMID", output.Num(m.VMID))
	output.Field(w, "Tenant", output.Str(m.TenantID))
	output.Field(w, "Status", m.Status)
	output.Field(w, "Node", output.OrDash(m.Node))
	output.Field(w, "Template", output.OrDash(m.TemplateID))
	output.Field(w, "CPU cores", output.Num(m.CPUCores))
	output.Field(w, "Memory MB", output.Num(m.MemoryMB))
	output.Field(w, "Disk GB", output.Num(m.DiskGB))
	if m.PlanID != nil {
		output.Field(w, "Plan", *m.PlanID)
	}
	for _, d := range m.Disks {
		output.Field(w, "Disk "+d.ID, fmt.Sprintf("%d GB on %s", d.SizeGB, d.Storage))
	}
	for _, ic := range m.Interfaces {
		ips := strings.Join(ic.IPAddresses, ",")
		if ips == "" {
			ips = "-"
		}
		output.Field(w, "Interface "+ic.ID, fmt.Sprintf("%s on %s, addresses %s", ic.MAC, ic.Bridge, ips))
	}
	for _, ad := range m.Addresses {
		line := fmt.Sprintf("%s/%d via %s (pool %s)", ad.Address, ad.Prefix, ad.Gateway, ad.Pool)
		if ad.PTR != "" {
			line += ", reverse name " + ad.PTR
		}
		output.Field(w, fmt.Sprintf("IPv%d", ad.Version), line)
	}
	if m.Firewall != nil {
		fw := m.Firewall.State
		if m.Firewall.Reason != "" {
			fw += ": " + m.Firewall.Reason
		}
		output.Field(w, "Firewall", fw)
	}
	if m.Media != nil {
		output.Field(w, "Media", m.Media.Name+" ("+output.OrDash(m.Media.ISOID)+")")
	}
	if len(m.BootOrder) > 0 {
		output.Field(w, "Boot order", strings.Join(m.BootOrder, ","))
	}
	if m.Rescue {
		output.Field(w, "Rescue", "on")
	}
	output.Field(w, "Task", output.Str(m.TaskID))
	output.Field(w, "Created", output.When(m.CreatedAt))
	if s := m.BillingSuspension; s != nil {
		output.Field(w, "Suspended (billing)", output.When(s.Since)+" ("+s.Action+"): "+s.Reason)
	}
	if m.TerminateAt != nil {
		output.Field(w, "Terminate at", output.When(*m.TerminateAt))
	}
}

// Plan prints a plan: its table, or its JSON or YAML with -o.
func Plan(p output.Printer, pl *client.Plan) error {
	return p.Print(pl, func(w *tabwriter.Writer) {
		output.Field(w, "ID", pl.ID)
		output.Field(w, "Name", pl.Name)
		output.Field(w, "CPU cores", output.Num(pl.CPUCores))
		output.Field(w, "Memory MB", output.Num(pl.MemoryMB))
		output.Field(w, "Disk GB", output.Num(pl.DiskGB))
		output.Field(w, "IPv4 addresses", output.Num(pl.IPv4))
		output.Field(w, "IPv6 prefix", output.OptNum(pl.IPv6Prefix, "/"))
		output.Field(w, "Traffic GB", output.OptNum(pl.TrafficGB, ""))
		output.Field(w, "Rate Mbps", output.OptNum(pl.RateMbps, ""))
		output.Field(w, "Backups", output.Bound(pl.Backups))
		output.Field(w, "Snapshots", output.Bound(pl.Snapshots))
		output.Field(w, "Templates", output.List(pl.AllowedTemplates, "all"))
		output.Field(w, "Location", pl.LocationID)
		output.Field(w, "Created", output.When(pl.CreatedAt))
	})
}

// Task prints a task: its table, or its JSON or YAML with -o.
func Task(p output.Printer, t *client.Task) error {
	return p.Print(t, func(w *tabwriter.Writer) {
		output.Field(w, "ID", t.ID)
		output.Field(w, "Type", t.Type)
		output.Field(w, "Target", t.TargetType+" "+t.TargetID)
		output.Field(w, "Status", t.Status)
		if t.Error != nil {
			output.Field(w, "Error", *t.Error)
		}
		output.Field(w, "Created", output.When(t.CreatedAt))
		output.Field(w, "Started", output.WhenPtr(t.StartedAt))
		output.Field(w, "Finished", output.WhenPtr(t.FinishedAt))
	})
}

// Tenant prints a tenant: its table, or its JSON or YAML with -o.
func Tenant(p output.Printer, t *client.Tenant) error {
	return p.Print(t, func(w *tabwriter.Writer) {
		output.Field(w, "ID", t.ID)
		output.Field(w, "Name", t.Name)
		output.Field(w, "Quota machines", output.Limit(t.Quota.Machines))
		output.Field(w, "Quota CPU cores", output.Limit(t.Quota.CPUCores))
		output.Field(w, "Quota memory MB", output.Limit(t.Quota.MemoryMB))
		output.Field(w, "Quota disk GB", output.Limit(t.Quota.DiskGB))
		output.Field(w, "Quota backups", output.Limit(t.Quota.Backups))
		output.Field(w, "Quota snapshots", output.Limit(t.Quota.Snapshots))
		output.Field(w, "Quota backup GB", output.Limit(t.Quota.BackupGB))
		output.Field(w, "Second factor required", output.YesNo(t.RequireTOTP))
		if t.ExternalID != nil {
			output.Field(w, "External id", *t.ExternalID)
		}
		output.Field(w, "Created", output.When(t.CreatedAt))
		if s := t.Suspension; s != nil {
			output.Field(w, "Suspended", output.When(s.Since)+" ("+s.Action+"): "+s.Reason)
		}
	})
}

// User prints a user: its table, or its JSON or YAML with -o.
func User(p output.Printer, u *client.User) error {
	return p.Print(u, func(w *tabwriter.Writer) {
		output.Field(w, "ID", u.ID)
		output.Field(w, "E-mail", u.Email)
		output.Field(w, "Name", output.OrDash(u.Name))
		output.Field(w, "Role", u.Role)
		output.Field(w, "Tenant", output.Str(u.TenantID))
		output.Field(w, "Disabled", output.YesNo(u.Disabled))
		output.Field(w, "Second factor", output.YesNo(u.TOTPEnabled))
		if u.ExternalID != nil {
			output.Field(w, "External id", *u.ExternalID)
		}
		output.Field(w, "Created", output.When(u.CreatedAt))
	})
}
