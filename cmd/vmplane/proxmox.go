package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
)

// proxmoxCmd is `vmplane proxmox check`: with the same settings as serve, it tests the
// connection to Proxmox and the API token's privileges and prints what is missing.
// Exit status: 0 all good, 1 unreachable, refused or missing privileges, 2 bad settings.
func proxmoxCmd(env cli.Env) *cobra.Command {
	check := checkCmd(env, &cobra.Command{
		Use:   "check [serve's --proxmox-* flags]",
		Short: "test the connection to Proxmox VE and the API token's privileges",
		Long: "Tests the connection to Proxmox VE and the API token's privileges, with the settings serve would use\n" +
			"(its flags, environment and configuration file).",
	}, func(l app.Loaded) int { return checkProxmox(l.Config, env.Stdout, env.Stderr) })
	return cli.Group(&cobra.Command{Use: "proxmox", Short: "the Proxmox VE cluster the proxmox driver drives"}, check)
}

// checkProxmox runs the check with cfg and returns the exit status.
func checkProxmox(cfg app.Config, stdout, stderr io.Writer) int {
	d, err := app.NewProxmoxDriver(cfg, nil)
	if err != nil {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Proxmox.RequestTimeout+5*time.Second)
	defer cancel()
	rep, err := d.Check(ctx)
	if err != nil {
		msg := err.Error()
		var e *apierr.Error
		if errors.As(err, &e) && e.Detail != "" {
			msg = e.Detail
		}
		fmt.Fprintf(stdout, "FAIL  %s with token %s: %s\n", cfg.Proxmox.URL, cfg.Proxmox.TokenID, msg)
		return 1
	}
	fmt.Fprintf(stdout, "ok    Proxmox VE %s at %s accepts token %s\n", rep.Version, cfg.Proxmox.URL, cfg.Proxmox.TokenID)
	if len(rep.Missing) == 0 {
		fmt.Fprintln(stdout, "ok    the token holds every privilege vmplane uses")
		return 0
	}
	for _, p := range rep.Missing {
		fmt.Fprintf(stdout, "MISSING  %-24s on / (or %s), for %s\n", p.Name, p.Paths[len(p.Paths)-1], p.For)
	}
	fmt.Fprintf(stdout, "FAIL  the token lacks %d privilege(s); grant a role holding them on / to the token (and its user, with privilege separation)\n", len(rep.Missing))
	return 1
}
