package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/app"
)

// runProxmox runs `vmplane proxmox check`: with the same settings as serve, it tests
// the connection to Proxmox and the API token's privileges and prints what is missing.
// Exit status: 0 all good, 1 unreachable, refused or missing privileges, 2 bad settings.
func runProxmox(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprint(stderr, "Usage: vmplane proxmox check [serve's --proxmox-* flags]\n\n"+
			"Tests the connection to Proxmox VE and the API token's privileges, with the settings serve would use.\n")
		return 2
	}
	cfg, err := app.Parse(args[1:], getenv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 2
	}
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
