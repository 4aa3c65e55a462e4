package hypervisor

import (
	"errors"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

// TestFirewallRuleErrors: rules pve-firewall refuses are refused here first, naming the
// field, for every driver.
func TestFirewallRuleErrors(t *testing.T) {
	ok := FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22,80:85", Source: "203.0.113.0/24", Destination: "192.0.2.1"}
	if f := FirewallRuleErrors(ok); len(f) != 0 {
		t.Fatalf("valid rule: got %v", f)
	}
	for _, good := range []FirewallRule{
		{Direction: "out", Action: "drop", Protocol: "icmp", Source: "198.51.100.7"},
		{Direction: "in", Action: "reject", Protocol: "ipv6-icmp", Source: "2001:db8::/32", Destination: "2001:db8::1"},
		{Direction: "in", Action: "accept", Protocol: "any", Source: "2001:db8::/48"},
	} {
		if f := FirewallRuleErrors(good); len(f) != 0 {
			t.Errorf("%+v: got %v; want valid", good, f)
		}
	}
	for name, c := range map[string]struct {
		r     FirewallRule
		field string
		frag  string
	}{
		"icmp with an IPv6 source":  {FirewallRule{Direction: "in", Action: "accept", Protocol: "icmp", Source: "2001:db8::/32"}, "source", "ipv6-icmp"},
		"ipv6-icmp with IPv4 dest":  {FirewallRule{Direction: "in", Action: "accept", Protocol: "ipv6-icmp", Destination: "10.0.0.1"}, "destination", "IPv6 only"},
		"mixed source and dest":     {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Source: "10.0.0.0/8", Destination: "2001:db8::1"}, "destination", "mix"},
		"port on icmp":              {FirewallRule{Direction: "in", Action: "accept", Protocol: "icmp", Port: "22"}, "port", "only tcp and udp"},
		"port out of range":         {FirewallRule{Direction: "in", Action: "accept", Protocol: "udp", Port: "70000"}, "port", "1..65535"},
		"port range backwards":      {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Port: "90:80"}, "port", "go up"},
		"service name port":         {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Port: "ssh"}, "port", "1..65535"},
		"ipset reference":           {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Source: "+blocklist"}, "source", "ipsets"},
		"alias reference":           {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Destination: "dc/mynet"}, "destination", "aliases"},
		"unknown protocol":          {FirewallRule{Direction: "in", Action: "accept", Protocol: "icmpv7"}, "protocol", "ipv6-icmp"},
		"direction forward":         {FirewallRule{Direction: "forward", Action: "accept", Protocol: "tcp"}, "direction", "in or out"},
		"macro-like action":         {FirewallRule{Direction: "in", Action: "SSH(ACCEPT)", Protocol: "tcp"}, "action", "accept"},
		"comment with a line break": {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Comment: "a\nb"}, "comment", "one line"},
		"comment too long":          {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Comment: strings.Repeat("x", 256)}, "comment", "255"},
		"port list too long":        {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Port: strings.Repeat("22,", 22) + "22"}, "port", "at most 64"},
		"source too long":           {FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Source: strings.Repeat("1", 65)}, "source", "at most 64"},
	} {
		f := FirewallRuleErrors(c.r)
		if len(f) != 1 || f[0].Field != c.field || !strings.Contains(f[0].Message, c.frag) {
			t.Errorf("%s: got %v; want one fault on %s mentioning %q", name, f, c.field, c.frag)
		}
	}
	err := ValidateFirewallRules([]FirewallRule{ok, {Direction: "in", Action: "accept", Protocol: "icmp", Source: "::1"}})
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Status != 400 || len(ae.Fields) != 1 || ae.Fields[0].Field != "rules[1].source" {
		t.Errorf("rule set: got %v; want 400 naming rules[1].source", err)
	}
	if !errors.Is(err, ErrInvalidRule) || !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Errorf("rule set: got %v; want ErrInvalidRule and invalid_request", err)
	}
	if p := apierr.From(err); len(p.Fields) != 1 || p.Status != 400 {
		t.Errorf("rule set: problem %+v; want 400 with the field", p)
	}
	if err := ValidateFirewallRules([]FirewallRule{ok}); err != nil {
		t.Errorf("valid rule set: got %v", err)
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate of a valid rule: got %v", err)
	}
	err = FirewallRule{Direction: "in", Action: "allow", Protocol: "tcp", Port: "0"}.Validate()
	if !errors.Is(err, ErrInvalidRule) || !errors.As(err, &ae) || len(ae.Fields) != 2 || ae.Fields[0].Field != "action" || ae.Fields[1].Field != "port" {
		t.Errorf("Validate of a rule with two faults: got %v; want ErrInvalidRule naming action and port", err)
	}
}
