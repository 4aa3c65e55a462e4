package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/persistence"
)

// storeBackupCmd is `vmplane admin backup --out FILE [--url URL] [--remote NAME]`: it
// saves the backup a running server streams (GET /api/admin/backup) into FILE, which
// appears only once the whole backup is in and checks out (a temporary file, synced,
// then renamed).
func storeBackupCmd(env cli.Env) *cobra.Command {
	var url, remote, out string
	c := &cobra.Command{
		Use:   "backup --out FILE [--url URL] [--remote NAME]",
		Short: "save a running server's store to a file (--out FILE; token in VMPLANE_TOKEN, or the saved login)",
		Long: "Saves a consistent backup of a running server's store:\n\n" +
			"  VMPLANE_TOKEN=... vmplane admin backup --url URL --out FILE\n" +
			"  vmplane admin backup [--remote NAME] --out FILE   (after 'vmplane login' as an operator)\n\n" +
			"VMPLANE_TOKEN is an operator's access token; without it, the saved login of the command-line\n" +
			"client is used. Load the file with 'vmplane admin restore FILE --data-dir DIR'.",
		Annotations: goFlags,
		RunE: func(_ *cobra.Command, args []string) error {
			return exit(storeBackup(args, url, remote, out, env))
		},
	}
	storeBackupFlags(c.Flags(), &url, &remote, &out)
	return c
}

// storeBackupFlags are the flags of the store's backup.
func storeBackupFlags(fs *pflag.FlagSet, url, remote, out *string) {
	fs.StringVar(url, "url", "", "base URL of the running server (env VMPLANE_URL; default: the remote's, or http://127.0.0.1:8080)")
	fs.StringVar(remote, "remote", "", "without VMPLANE_TOKEN, the saved login (vmplane login) of this remote of the command-line client; default: its current remote")
	outFlag(fs, out)
}

func outFlag(fs *pflag.FlagSet, out *string) {
	fs.StringVar(out, "out", "", "file to write the backup to (required); replaced only by a complete backup")
}

// oldStoreBackup keeps `vmplane backup --out FILE` (flags only), the store's backup
// before it moved to `vmplane admin backup`, working on the client's backup group:
// with --out and no subcommand it takes the store's backup, and says what to use.
func oldStoreBackup(group *cobra.Command, env cli.Env) {
	var out string
	outFlag(group.Flags(), &out)
	_ = group.Flags().MarkHidden("out")
	group.Annotations = goFlags // it was parsed with Go's flag package: -out FILE
	group.Long = group.Short + ": list, show and delete them with the subcommands below.\n\n" +
		"The server's own store is backed up and restored with 'vmplane admin':\n" +
		"  vmplane admin backup --out FILE [--url URL]      save a running server's store to FILE\n" +
		"  vmplane admin restore FILE --data-dir DIR        load it into an empty data directory\n" +
		"('vmplane backup --out FILE', its old spelling, still works.)"
	listing := group.RunE
	group.RunE = func(cmd *cobra.Command, args []string) error {
		if !cmd.Flags().Changed("out") || len(args) > 0 {
			return listing(cmd, args)
		}
		// The client's persistent --url and --remote are the same flags by name.
		url, _ := cmd.Flags().GetString("url")
		remote, _ := cmd.Flags().GetString("remote")
		fmt.Fprintln(env.Stderr, "vmplane: 'vmplane backup --out' is now 'vmplane admin backup --out' (the old spelling still works)")
		return exit(storeBackup(nil, url, remote, out, env))
	}
}

// storeBackup takes the backup: the exit status.
func storeBackup(args []string, url, remote, out string, env cli.Env) int {
	if out == "" || len(args) > 0 {
		fmt.Fprintln(env.Stderr, "vmplane backup: --out FILE is required (and nothing else)")
		return 2
	}
	// The folder first: a backup fetched for nowhere is a server's time wasted.
	if err := outFolder(out); err != nil {
		fmt.Fprintf(env.Stderr, "vmplane backup: %v\n", err)
		return 1
	}
	base, hc, err := backupConnection(env.Getenv, url, remote, env.Stdout, env.Stderr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "vmplane backup: %v\n", err)
		return 2
	}
	n, h, err := fetchBackup(hc, strings.TrimRight(base, "/")+"/api/admin/backup", out)
	if err != nil {
		fmt.Fprintf(env.Stderr, "vmplane backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(env.Stdout, "backup of %d bytes (store schema %d) written to %s\n", n, h.Schema, out)
	return 0
}

// outFolder checks that the folder of --out FILE exists, in words that name it (not
// the temporary file the backup is first written to).
func outFolder(out string) error {
	dir := filepath.Dir(out)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--out %s: the folder %s does not exist", out, dir)
	case err != nil:
		return fmt.Errorf("--out %s: %w", out, err)
	case !fi.IsDir():
		return fmt.Errorf("--out %s: %s is not a folder", out, dir)
	}
	return nil
}

func envOr(getenv func(string) string, name, fallback string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return fallback
}

// backupConnection is the server to back up and an HTTP client that signs its
// requests: with VMPLANE_TOKEN, or else with the command-line client's saved login of
// remote (or its current remote).
func backupConnection(getenv func(string) string, url, remote string, stdout, stderr io.Writer) (string, *http.Client, error) {
	if url == "" {
		url = getenv("VMPLANE_URL")
	}
	if tok := getenv("VMPLANE_TOKEN"); tok != "" {
		if url == "" {
			url = "http://127.0.0.1:8080"
		}
		// No overall timeout (a large store takes its time), but one for connecting
		// and for the answer to start.
		return url, &http.Client{Transport: cli.Bearer(tok, &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			ResponseHeaderTimeout: time.Minute,
			Proxy:                 http.ProxyFromEnvironment,
		})}, nil
	}
	base, hc, err := cli.Connect(cli.Env{Stdout: stdout, Stderr: stderr, Getenv: getenv}, remote, url, "")
	if err != nil {
		return "", nil, fmt.Errorf("VMPLANE_TOKEN is not set and there is no saved login to use (%v): "+
			"set VMPLANE_TOKEN to an operator's access token (POST /api/auth/login), or run 'vmplane login' as an operator", err)
	}
	return base, hc, nil
}

// fetchBackup downloads the backup into a temporary file beside out, checks it, syncs
// it and renames it to out.
func fetchBackup(client *http.Client, url, out string) (int64, persistence.BackupHeader, error) {
	var h persistence.BackupHeader
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return 0, h, err
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, h, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, h, refusal(res)
	}
	dir := filepath.Dir(out)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		// Say which file the user named, not the temporary one beside it.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return 0, h, fmt.Errorf("cannot write %s: %w", out, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	n, err := io.Copy(tmp, res.Body)
	if err != nil {
		// A chunked answer without its last chunk: the server's backup failed.
		return n, h, fmt.Errorf("the backup stream broke off after %d bytes (%v); %s is unchanged", n, err, out)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return n, h, err
	}
	if h, err = persistence.VerifyBackup(tmp); err != nil {
		return n, h, fmt.Errorf("the server's answer is %s; %s is unchanged", apierr.From(err).Detail, out)
	}
	if err := tmp.Sync(); err != nil {
		return n, h, err
	}
	if err := tmp.Close(); err != nil {
		return n, h, err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return n, h, err
	}
	done = true
	// The rename is durable once the directory is synced.
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return n, h, err
		}
	}
	return n, h, nil
}

// refusal turns a non-200 answer into one clear sentence.
func refusal(res *http.Response) error {
	var p struct{ Code, Detail string }
	_ = json.NewDecoder(io.LimitReader(res.Body, 64<<10)).Decode(&p)
	switch res.StatusCode {
	case http.StatusUnauthorized:
		return fmt.Errorf("the server refused the token (401 %s): VMPLANE_TOKEN must be a valid, unexpired access token", p.Code)
	case http.StatusForbidden:
		return fmt.Errorf("the token's user may not take backups (403 %s): it takes an operator's (admin) token", p.Code)
	case http.StatusNotFound:
		return fmt.Errorf("the server has no backup route (404): check --url, and that the server is a vmplane with backups")
	}
	if p.Detail != "" {
		return fmt.Errorf("the server answered %d %s: %s", res.StatusCode, p.Code, p.Detail)
	}
	return fmt.Errorf("the server answered %s", res.Status)
}

// restoreCmd is `vmplane admin restore FILE --data-dir DIR`: it loads a backup into
// an empty data directory, for a server to be started on it.
func restoreCmd(env cli.Env) *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "restore FILE --data-dir DIR",
		Short: "load a backup into an empty data directory (restore FILE --data-dir DIR)",
		Long: "Loads a backup written by 'vmplane admin backup' into an empty data directory (only vmplane.lock\n" +
			"may be in it), for a server to be started on it.",
		Annotations: goFlags,
		RunE: func(_ *cobra.Command, args []string) error {
			return exit(runRestore(args, dir, env))
		},
	}
	c.Flags().StringVar(&dir, "data-dir", envOr(env.Getenv, "VMPLANE_DATA_DIR", app.Defaults().DataDir),
		"empty data directory to restore into, created if missing (env VMPLANE_DATA_DIR)")
	return c
}

// oldRestoreCmd keeps `vmplane restore FILE --data-dir DIR`, the spelling before
// `vmplane admin restore`, working: hidden from the overview, it says what to use.
func oldRestoreCmd(env cli.Env) *cobra.Command {
	c := restoreCmd(env)
	c.Hidden = true
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		fmt.Fprintln(env.Stderr, "vmplane: 'vmplane restore' is now 'vmplane admin restore' (the old spelling still works)")
		return run(cmd, args)
	}
	return c
}

// runRestore restores the one backup file of args into dir: the exit status.
func runRestore(args []string, dir string, env cli.Env) int {
	if len(args) != 1 {
		fmt.Fprintln(env.Stderr, "vmplane restore: give exactly one backup FILE (vmplane admin restore FILE --data-dir DIR)")
		return 2
	}
	if err := restore(args[0], dir, env.Stdout); err != nil {
		fmt.Fprintf(env.Stderr, "vmplane restore: %v\n", err)
		return 1
	}
	return 0
}

func restore(file, dir string, stdout io.Writer) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	// The whole file is checked before anything is written.
	h, err := persistence.VerifyBackup(f)
	if err != nil {
		return fmt.Errorf("%s: %s", file, apierr.From(err).Detail)
	}
	if h.Schema > persistence.SchemaVersion {
		return fmt.Errorf("%s holds a store of schema version %d, newer than this vmplane knows (%d): restore it with the vmplane that took it",
			file, h.Schema, persistence.SchemaVersion)
	}
	if pid, held, err := persistence.LockHolder(dir); err != nil {
		return err
	} else if held {
		return fmt.Errorf("data directory %s is in use by vmplane process %d: stop it, and restore into an empty directory", dir, pid)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, e := range entries {
		if e.Name() != persistence.LockFile {
			return fmt.Errorf("data directory %s is not empty (it holds %s): restore into an empty or new directory", dir, e.Name())
		}
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	store, err := persistence.Open(persistence.Options{Dir: dir, MinFreeBytes: -1})
	if err != nil {
		return err
	}
	err = store.Load(f)
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// The directory was empty: what is in it now is this restore's, half done.
		for _, e := range mustReadDir(dir) {
			if e.Name() != persistence.LockFile {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
		return fmt.Errorf("loading %s failed, %s is empty again: %s", file, dir, apierr.From(err).Detail)
	}
	fmt.Fprintf(stdout, "restored %s (store schema %d) into %s; start vmplane with --data-dir %s\n", file, h.Schema, dir, dir)
	return nil
}

func mustReadDir(dir string) []os.DirEntry {
	es, _ := os.ReadDir(dir)
	return es
}
