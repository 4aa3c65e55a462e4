package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// Locations: the hypervisor clusters machines are made in (operators only).

func (a *app) locationCmd() *cobra.Command {
	var driver string
	var px client.LocationProxmoxSpec
	add := &cobra.Command{
		Use:   "add NAME --driver proxmox --url URL --token-id ID (--token-secret-file FILE | --token-secret-stdin) [--tls-fingerprint FP] | add NAME --driver sim",
		Short: "add a hypervisor cluster machines can be made in",
		Long: `Add a location: a Proxmox VE cluster of its own (one per data centre), or another
simulated cluster. The token secret is either stored by the server, sealed with the key
of its --location-secret-key-file (--token-secret-stdin reads it from the standard
input, so it stays out of the shell's history), or read by the server from a file on
its own disk (--token-secret-file).`,
		Args: cmdline.Args(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec := client.LocationSpec{Name: args[0], Driver: driver}
			if driver == "proxmox" {
				if px.URL == "" || px.TokenID == "" {
					return cmdline.Usagef("--url and --token-id are required for a proxmox location")
				}
				if stdin, _ := cmd.Flags().GetBool("token-secret-stdin"); stdin {
					secret, err := a.readPassword(newLineReader(a.env.Stdin), true, "")
					if err != nil {
						return err
					}
					px.TokenSecret = secret
				}
				spec.Proxmox = &px
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			l, err := c.CreateLocation(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return p.Print(l, func(w *tabwriter.Writer) { locationCard(w, l) })
		},
	}
	add.Flags().StringVar(&driver, "driver", "proxmox", "proxmox, or sim for another simulated cluster")
	add.Flags().StringVar(&px.URL, "url", "", "the cluster's API, https://host:8006")
	add.Flags().StringVar(&px.TokenID, "token-id", "", "the API token, user@realm!name")
	add.Flags().StringVar(&px.TokenSecretFile, "token-secret-file", "", "a file on the server holding the token's secret")
	add.Flags().Bool("token-secret-stdin", false, "read the token's secret from the standard input; the server stores it sealed")
	add.Flags().StringVar(&px.TLSFingerprint, "tls-fingerprint", "", "the SHA-256 fingerprint of the cluster's certificate, for a self-signed one")

	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list the locations, the server's own driver (default) first",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Locations(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "DRIVER", "URL")
				for _, l := range items {
					url := ""
					if l.Proxmox != nil {
						url = l.Proxmox.URL
					}
					output.Row(w, l.ID, l.Name, l.Driver, url)
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a location (never its token secret)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			l, err := c.Location(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return p.Print(l, func(w *tabwriter.Writer) { locationCard(w, l) })
		},
	}
	var offeredLim int
	offered := &cobra.Command{
		Use:   "offered",
		Short: "list the locations the tenant may make machines in (tenant users; operators with --tenant)",
		Long: `List the locations a new machine may be made in, as machine create --location names
them: each one's id, name, whether it is the default, and whether its cluster answers
now (AVAILABLE is "no" while the location's hypervisor_unavailable alert is open).
Tenant users read this list; location list, with the drivers' settings, is the
operators'. An operator names the tenant with --tenant.`,
		Args: cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.ClientLocations(cmd.Context(), client.ListOptions{}), offeredLim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "DEFAULT", "AVAILABLE")
				for _, l := range items {
					output.Row(w, l.ID, l.Name, output.YesNo(l.Default), output.YesNo(l.Available))
				}
			})
		},
	}
	cmdline.LimitFlag(offered, &offeredLim)
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "delete a location nothing belongs to any more (never the default one)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteLocation(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted location %s", args[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "location", Short: "locations: the hypervisor clusters machines are made in (operators; tenants: offered)"},
		add, list, offered, show, del)
}

// locationCard prints a location's fields.
func locationCard(w *tabwriter.Writer, l *client.Location) {
	output.Field(w, "ID", l.ID)
	output.Field(w, "Name", l.Name)
	output.Field(w, "Driver", l.Driver)
	if l.Default {
		output.Field(w, "Default", "yes: the server's configured driver")
	}
	if px := l.Proxmox; px != nil {
		output.Field(w, "URL", px.URL)
		output.Field(w, "Token", px.TokenID)
		switch {
		case px.TokenSecretStored:
			output.Field(w, "Secret", "stored, sealed")
		case px.TokenSecretFile != "":
			output.Field(w, "Secret", "read from "+px.TokenSecretFile)
		}
		if px.TLSFingerprint != "" {
			output.Field(w, "Fingerprint", px.TLSFingerprint)
		}
	}
	if !l.CreatedAt.IsZero() {
		output.Field(w, "Created", output.When(l.CreatedAt))
	}
}
