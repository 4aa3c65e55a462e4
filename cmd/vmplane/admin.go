package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/persistence"
)

// adminCmd is `vmplane admin ...`: an operator's work on a server's own store: its
// backup and restore, and a lost password.
func adminCmd(env cli.Env) *cobra.Command {
	return cli.Group(&cobra.Command{
		Use:   "admin",
		Short: "work on a server's own store: backup, restore, reset-password",
		Long: "An operator's work on a server's own store (not on the machines it runs):\n" +
			"  backup          save a running server's store to a file, through its API\n" +
			"  restore         load such a file into an empty data directory, for a server to start on\n" +
			"  reset-password  set a user's password in the data directory of a stopped server\n\n" +
			"Machines' backups are the client's 'vmplane backup list|show|delete'.",
	}, storeBackupCmd(env), restoreCmd(env), resetPasswordCmd(env))
}

// resetPasswordCmd is `vmplane admin reset-password`: it sets a user's password in the
// store of a stopped server: the way back in when the admin password is lost. The data
// directory's lock tells whether a server runs on it.
func resetPasswordCmd(env cli.Env) *cobra.Command {
	def := app.Defaults()
	var (
		dir, email string
		fromStdin  bool
		cost       int
	)
	c := &cobra.Command{
		Use:         "reset-password [--data-dir DIR] [--email E] [--password-stdin]",
		Short:       "set a user's password in the data directory of a stopped server",
		Long:        "Sets a user's password (and ends its logins) in the data directory of a stopped server.",
		Args:        noArgs(env),
		Annotations: goFlags,
	}
	fs := c.Flags()
	fs.StringVar(&dir, "data-dir", envOr(env.Getenv, "VMPLANE_DATA_DIR", def.DataDir), "data directory of the stopped server (env VMPLANE_DATA_DIR)")
	fs.StringVar(&email, "email", envOr(env.Getenv, "VMPLANE_ADMIN_EMAIL", def.AdminEmail), "e-mail of the user whose password is reset (env VMPLANE_ADMIN_EMAIL)")
	fs.BoolVar(&fromStdin, "password-stdin", false, "read the new password from the first line of standard input; without it a random one is generated and printed")
	fs.IntVar(&cost, "bcrypt-cost", def.BcryptCost, "bcrypt cost of the new hash (env VMPLANE_BCRYPT_COST)")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if v := env.Getenv("VMPLANE_BCRYPT_COST"); v != "" && !cmd.Flags().Changed("bcrypt-cost") {
			if _, err := fmt.Sscan(v, &cost); err != nil {
				fmt.Fprintf(env.Stderr, "vmplane admin: invalid VMPLANE_BCRYPT_COST %q: must be an integer\n", v)
				return exit(2)
			}
		}
		return exit(resetPassword(dir, email, fromStdin, cost, env.Stdin, env.Stdout, env.Stderr))
	}
	return c
}

// noArgs refuses positional arguments, in a server command's words.
func noArgs(env cli.Env) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			fmt.Fprintf(env.Stderr, "%s: unexpected arguments %q (see '%s -h')\n", cmd.CommandPath(), args, cmd.CommandPath())
			return exit(2)
		}
		return nil
	}
}

// resetPassword sets the password of the user email in the store in dir; from stdin,
// or a random one it prints.
func resetPassword(dir, email string, fromStdin bool, cost int, stdin io.Reader, stdout, stderr io.Writer) int {
	password, generated := "", false
	if fromStdin {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			fmt.Fprintf(stderr, "vmplane admin: reading the password: %v\n", err)
			return 1
		}
		password = strings.TrimRight(line, "\r\n")
	} else {
		b := make([]byte, 18)
		if _, err := rand.Read(b); err != nil {
			fmt.Fprintf(stderr, "vmplane admin: %v\n", err)
			return 1
		}
		password, generated = base64.RawURLEncoding.EncodeToString(b), true
	}
	store, err := persistence.Open(persistence.Options{Dir: dir, MinFreeBytes: -1})
	if err != nil {
		var inUse *persistence.InUseError
		if errors.As(err, &inUse) {
			fmt.Fprintf(stderr, "vmplane admin: %v (a running vmplane server): stop it first, "+
				"or let an operator reset the password through the API (PATCH /api/resources/users/{id} {\"password\": ...})\n", inUse)
			return 1
		}
		fmt.Fprintf(stderr, "vmplane admin: %v\n", err)
		return 1
	}
	defer store.Close()
	// The same schema check as serve's: a newer vmplane's store is not written to.
	if _, err := persistence.Upgrade(context.Background(), store, nil, actors.Migrations(nil)); err != nil {
		fmt.Fprintf(stderr, "vmplane admin: data directory %s: %v\n", dir, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if exists, err := auth.AdminExists(ctx, store); err != nil || !exists {
		fmt.Fprintf(stderr, "vmplane admin: %s holds no vmplane data (no admin was ever created there); check --data-dir\n", dir)
		return 1
	}
	u, err := auth.ResetPassword(ctx, store, email, password, cost)
	if err != nil {
		fmt.Fprintf(stderr, "vmplane admin: %v\n", apierr.From(err).Detail)
		return 1
	}
	// The first boot's password file no longer opens anything once its admin's
	// password is reset.
	if first, err := auth.FirstAdminID(ctx, store); err == nil && first == u.ID {
		if err := os.Remove(app.InitialPasswordFile(dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "vmplane admin: could not remove %s: %v\n", app.InitialPasswordFile(dir), err)
		}
	}
	if generated {
		fmt.Fprintf(stdout, "password of %s reset to: %s\n", u.Email, password)
	} else {
		fmt.Fprintf(stdout, "password of %s reset\n", u.Email)
	}
	fmt.Fprintln(stdout, "its logins were ended; start the server and log in with the new password")
	return 0
}
