package cli

import (
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// API keys: credentials for programs, made by a signed-in user.

func (a *app) apiKeyCmd() *cobra.Command {
	var spec client.APIKeySpec
	var expires string
	create := &cobra.Command{
		Use:   "create --name NAME --scope SCOPE... [--expires 2027-01-01 | --expires 720h] [--cidr 192.0.2.0/24]",
		Short: "make an API key for programs; its secret is printed this once",
		Long: `Make an API key that acts as you, within its scopes: read (every GET), machines:write,
tenants:write, billing, admin. --tenant keeps an operator's key within one tenant (a
tenant user's keys always are). The secret is printed only now: give it to the
program as a bearer token (or VMPLANE_TOKEN for this CLI).`,
		Args: cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if spec.Name == "" || len(spec.Scopes) == 0 {
				return cmdline.Usagef("--name and at least one --scope are needed (%s)", strings.Join([]string{client.ScopeRead, client.ScopeMachinesWrite, client.ScopeTenantsWrite, client.ScopeBilling, client.ScopeAdmin}, ", "))
			}
			if expires != "" {
				t, err := parseExpiry(expires, time.Now())
				if err != nil {
					return err
				}
				spec.ExpiresAt = &t
			}
			if ten := a.tenantScope(); ten != "" {
				spec.TenantID = &ten
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			k, err := c.CreateAPIKey(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return p.Print(k, func(w *tabwriter.Writer) {
				output.Field(w, "ID", k.ID)
				output.Field(w, "Name", k.Name)
				output.Field(w, "Scopes", strings.Join(k.Scopes, ", "))
				output.Field(w, "Tenant", output.Str(k.TenantID))
				output.Field(w, "Secret", k.Secret+"   (shown only now)")
			})
		},
	}
	create.Flags().StringVar(&spec.Name, "name", "", "what the key is for")
	create.Flags().StringArrayVar(&spec.Scopes, "scope", nil, "a scope (repeatable): read, machines:write, tenants:write, billing, admin")
	create.Flags().StringVar(&expires, "expires", "", "when the key ends: a date (2027-01-01), a time (RFC 3339) or a duration from now (720h)")
	create.Flags().StringArrayVar(&spec.AllowedCIDRs, "cidr", nil, "an address or network the key works from (repeatable; none: any)")

	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list API keys: yours, or an operator's view of all (never their secrets)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.APIKeys(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "USER", "SCOPES", "TENANT", "EXPIRES", "LAST_USED")
				for _, k := range items {
					output.Row(w, k.ID, k.Name, k.UserID, strings.Join(k.Scopes, ","), output.Str(k.TenantID), whenPtr(k.ExpiresAt), whenPtr(k.LastUsedAt))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "revoke an API key: the next request made with it is refused",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.RevokeAPIKey(cmd.Context(), argv[0]); err != nil {
				return err
			}
			a.done("revoked API key %s", argv[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "api-key", Short: "API keys for programs: create, list, revoke"}, create, list, revoke)
}

// parseExpiry reads --expires: a date, an RFC 3339 time, or a duration from now.
func parseExpiry(v string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return now.Add(d), nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, cmdline.Usagef("--expires %q: want a date (2027-01-01), a time (2027-01-01T00:00:00Z) or a duration (720h)", v)
}

func whenPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return output.When(*t)
}
