package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/persistence"
)

// runAdmin runs `vmplane admin <subcommand>`: work on the data directory of a
// stopped server.
func runAdmin(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "reset-password" {
		fmt.Fprint(stderr, "Usage: vmplane admin reset-password [--data-dir DIR] [--email E] [--password-stdin]\n")
		return 2
	}
	return resetPassword(args[1:], getenv, stdin, stdout, stderr)
}

// resetPassword sets a user's password in the store of a stopped server: the way back
// in when the admin password is lost. The data directory's lock tells whether a server
// runs on it.
func resetPassword(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	def := app.Defaults()
	env := func(name, fallback string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return fallback
	}
	fs := flag.NewFlagSet("admin reset-password", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("data-dir", env("VMPLANE_DATA_DIR", def.DataDir), "data directory of the stopped server (env VMPLANE_DATA_DIR)")
	email := fs.String("email", env("VMPLANE_ADMIN_EMAIL", def.AdminEmail), "e-mail of the user whose password is reset (env VMPLANE_ADMIN_EMAIL)")
	fromStdin := fs.Bool("password-stdin", false, "read the new password from the first line of standard input; without it a random one is generated and printed")
	cost := fs.Int("bcrypt-cost", def.BcryptCost, "bcrypt cost of the new hash (env VMPLANE_BCRYPT_COST)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: vmplane admin reset-password [flags]\n\nSets a user's password (and ends its logins) in the data directory of a stopped server.\n\n")
		fs.PrintDefaults()
	}
	if v := getenv("VMPLANE_BCRYPT_COST"); v != "" {
		if _, err := fmt.Sscan(v, cost); err != nil {
			fmt.Fprintf(stderr, "vmplane admin: invalid VMPLANE_BCRYPT_COST %q: must be an integer\n", v)
			return 2
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	password, generated := "", false
	if *fromStdin {
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
	store, err := persistence.Open(persistence.Options{Dir: *dir, MinFreeBytes: -1})
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
		fmt.Fprintf(stderr, "vmplane admin: data directory %s: %v\n", *dir, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if exists, err := auth.AdminExists(ctx, store); err != nil || !exists {
		fmt.Fprintf(stderr, "vmplane admin: %s holds no vmplane data (no admin was ever created there); check --data-dir\n", *dir)
		return 1
	}
	u, err := auth.ResetPassword(ctx, store, *email, password, *cost)
	if err != nil {
		fmt.Fprintf(stderr, "vmplane admin: %v\n", apierr.From(err).Detail)
		return 1
	}
	// The first boot's password file no longer opens anything once its admin's
	// password is reset.
	if first, err := auth.FirstAdminID(ctx, store); err == nil && first == u.ID {
		if err := os.Remove(app.InitialPasswordFile(*dir)); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "vmplane admin: could not remove %s: %v\n", app.InitialPasswordFile(*dir), err)
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
