// Package docs holds the user documentation that README.md links to, the test that runs
// every command README.md and these pages show, so that what a reader copies works as
// written, and the test that keeps their links inside the repository.
package docs

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A block is one fenced shell block of README.md or of a page of docs/, and how the test
// runs it.
//
// The directive is an HTML comment on the line before the fence, invisible to readers:
//
//	<!-- readme-test: background, wait localhost:8080 -->  a server: started, left running, and
//	                                                        waited for until /api/health answers
//	<!-- readme-test: stream 3s -->                         runs for 3 s and must still be running
//	<!-- readme-test: skip: REASON -->                      not run here, for the reason given
//
// A block without one runs in the foreground and must succeed.
type block struct {
	where  string // page:line of the opening fence, 1-based
	text   string
	mode   string // "", "background", "stream" or "skip"
	wait   string // host:port, for background
	stream time.Duration
	reason string // for skip
}

var directive = regexp.MustCompile(`^<!-- readme-test: (.*) -->$`)

// parseBlocks returns the shell blocks of a markdown page in order.
func parseBlocks(t *testing.T, page, md string) []block {
	t.Helper()
	var out []block
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if fence != "```sh" && fence != "```bash" && fence != "```shell" {
			continue
		}
		b := block{where: fmt.Sprintf("%s:%d", page, i+1)}
		if i > 0 {
			if m := directive.FindStringSubmatch(strings.TrimSpace(lines[i-1])); m != nil {
				parseDirective(t, &b, m[1])
			}
		}
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		b.text = strings.Join(body, "\n")
		out = append(out, b)
	}
	return out
}

func parseDirective(t *testing.T, b *block, d string) {
	t.Helper()
	switch {
	case strings.HasPrefix(d, "skip:"):
		b.mode, b.reason = "skip", strings.TrimSpace(strings.TrimPrefix(d, "skip:"))
		if b.reason == "" {
			t.Fatalf("%s: a skipped block must say why", b.where)
		}
	case strings.HasPrefix(d, "background, wait "):
		b.mode, b.wait = "background", strings.TrimPrefix(d, "background, wait ")
	case strings.HasPrefix(d, "stream "):
		dur, err := time.ParseDuration(strings.TrimPrefix(d, "stream "))
		if err != nil {
			t.Fatalf("%s: %v", b.where, err)
		}
		b.mode, b.stream = "stream", dur
	default:
		t.Fatalf("%s: unknown readme-test directive %q", b.where, d)
	}
}

// loopbackAddr matches the server addresses the pages' commands use.
var loopbackAddr = regexp.MustCompile(`\b(localhost|127\.0\.0\.1):(\d{2,5})\b`)

// commandPages are the pages whose commands the test runs, in the order it runs them:
// README.md (its walkthrough starts the server and sets the variables the others use),
// then every page of docs/ in name order.
func commandPages(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, p := range pages { // Glob sorts them
		rel, _ := filepath.Rel(root, p)
		out = append(out, rel)
	}
	return out
}

// TestReadmeCommands runs the shell blocks of README.md and of the pages of docs/, in
// order, as one shell session (so a variable set in one block is there in the next), in
// a copy of the repository's files: those git tracks, or would (git ls-files), never
// what a reader's earlier run left behind. The ports the pages use are replaced by free
// loopback ports, so the test never collides with a server already running on this
// machine; nothing else of a command is changed. curl answers 4xx and 5xx fail the run
// (curl --fail-with-body), and jq fails on a missing field (jq -e), so a command that
// works only in appearance fails the test. Every file the commands leave in the copy
// must be one .gitignore ignores, so following the walkthrough in a checkout leaves
// git status clean.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server several times")
	}
	for _, tool := range []string{"bash", "make", "curl", "jq", "go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("README.md's commands need %s: %v (.ci/run installs it)", tool, err)
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []block
	for _, page := range commandPages(t, root) {
		md, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, parseBlocks(t, page, string(md))...)
	}
	if len(blocks) == 0 {
		t.Fatal("README.md has no shell blocks")
	}

	work, logs := t.TempDir(), t.TempDir()
	copied := copyTree(t, root, work)
	ports := map[string]string{}
	port := func(p string) string {
		if ports[p] == "" {
			ports[p] = freePort(t)
		}
		return ports[p]
	}
	rewrite := func(s string) string {
		return loopbackAddr.ReplaceAllStringFunc(s, func(m string) string {
			sub := loopbackAddr.FindStringSubmatch(m)
			return "127.0.0.1:" + port(sub[2])
		})
	}

	// The logs of background and streamed blocks go to a directory of their own, so
	// that what is in the copy afterwards is what the commands wrote.
	var script strings.Builder
	script.WriteString(scriptHead)
	ran := 0
	for n, b := range blocks {
		text := rewrite(b.text)
		log := filepath.Join(logs, fmt.Sprintf("block-%d.log", n))
		switch b.mode {
		case "skip":
			t.Logf("%s: not run: %s", b.where, b.reason)
			continue
		case "background":
			fmt.Fprintf(&script, "start_block %q\n( %s\n) > %q 2>&1 &\nservers+=($!)\nwait_health %s %q\n",
				b.where, text, log, rewrite(b.wait), log)
		case "stream":
			fmt.Fprintf(&script, "start_block %q\n( %s\n) > %q 2>&1 &\nstream_for $! %d %q\n",
				b.where, text, log, int(b.stream.Seconds()), log)
		default:
			fmt.Fprintf(&script, "start_block %q\n%s\n", b.where, text)
		}
		ran++
	}
	script.WriteString("start_block done\n")
	if ran == 0 {
		t.Fatal("every block is skipped")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = work
	times := filepath.Join(logs, "times")
	cmd.Env = append(scriptEnv(port("8080")), "README_TEST_TIMES="+times)
	// A session of its own: the servers the script starts get process groups of their
	// own (job control), but stay in its session, by which they are found at the end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	// Whatever happened (a timeout kills the shell before its trap can stop the
	// servers), no process the script started outlives the test.
	killSession(cmd.Process.Pid)
	if err != nil {
		t.Fatalf("the pages' commands failed (%v); the last block started is the culprit:\n%s%s",
			err, out.String(), logsOf(logs))
	}
	if !strings.Contains(out.String(), "### done") {
		t.Fatalf("the script ended early:\n%s", out.String())
	}
	t.Logf("ran %d blocks; the slowest: %s", ran, slowest(times, 5))
	checkIgnored(t, root, work, copied)
}

// checkIgnored fails for each file the commands wrote into the copy (one that was not
// copied there) that the repository's .gitignore does not ignore.
func checkIgnored(t *testing.T, root, work string, copied map[string]bool) {
	t.Helper()
	var written []string
	err := filepath.WalkDir(work, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(work, path)
		if !copied[rel] {
			written = append(written, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) == 0 {
		t.Fatal("the commands wrote no file into the copy: the check below would pass whatever .gitignore says")
	}
	// check-ignore names the paths it ignores; --no-index judges by .gitignore alone.
	cmd := exec.Command("git", "check-ignore", "--no-index", "--stdin")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader(strings.Join(written, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 { // 1: none ignored
			t.Fatalf("git check-ignore: %v", err)
		}
	}
	ignored := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		ignored[l] = true
	}
	for _, w := range written {
		if !ignored[w] {
			t.Errorf("the commands wrote %s, which .gitignore does not ignore", w)
		}
	}
}

// scriptHead sets up the shell session: strict mode, job control (each background block
// in its own process group, so it can be stopped with everything it started), and the
// helpers the generated script calls.
const scriptHead = `set -euo pipefail
set -m
servers=()
cleanup() {
	local all=("${servers[@]}" $(jobs -p))
	for p in "${all[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
	# A second at most for them to stop on their own, ended as soon as every group is
	# gone (kill -0 on a group fails once no process of it is left).
	for _ in $(seq 1 20); do
		local left=0
		for p in "${all[@]}"; do kill -0 -- "-$p" 2>/dev/null && left=1; done
		[ "$left" = 0 ] && break
		sleep 0.05
	done
	for p in "${all[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
}
trap cleanup EXIT
start_block() { echo "### $1" >&2; echo "$EPOCHREALTIME $1" >> "$README_TEST_TIMES"; }
curl() {
	local a
	for a in "$@"; do
		# A command that passes -f itself expects curl to fail quietly (as in a wait loop).
		case $a in --fail | -[a-zA-Z]*f*) command curl --max-time 60 "$@"; return ;; esac
	done
	command curl --fail-with-body --max-time 60 "$@"
}
jq() { command jq -e "$@"; }
wait_health() {
	local addr=$1 log=$2 pid=${servers[-1]}
	for _ in $(seq 1 900); do
		if command curl -sf --max-time 2 "http://$addr/api/health" > /dev/null; then return 0; fi
		if ! kill -0 "$pid" 2>/dev/null; then echo "the server ended:" >&2; cat "$log" >&2; return 1; fi
		sleep 0.2
	done
	echo "no answer on $addr" >&2; cat "$log" >&2; return 1
}
stream_for() {
	local pid=$1 secs=$2 log=$3
	sleep "$secs"
	if ! kill -0 "$pid" 2>/dev/null; then echo "the stream ended by itself:" >&2; cat "$log" >&2; return 1; fi
	kill -TERM -- "-$pid" 2>/dev/null || true
	wait "$pid" || true
	if [ ! -s "$log" ]; then echo "the stream printed nothing" >&2; return 1; fi
}
`

// scriptEnv is the test's environment without any VMPLANE_* setting of the caller's, with
// the pages' default server address moved to a free port, and -trimpath added to
// GOFLAGS. The copy is a new directory each run, and without -trimpath the go command
// keys its build cache on a package's directory (the object files name it): every
// run compiled the whole server again, most of the test's time. With -trimpath the
// copy's builds share the cache across runs, as a reader's builds in one checkout do.
func scriptEnv(port8080 string) []string {
	var env []string
	goflags := "-trimpath"
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "VMPLANE_"):
		case strings.HasPrefix(kv, "GOFLAGS="):
			goflags = strings.TrimSpace(strings.TrimPrefix(kv, "GOFLAGS=") + " " + goflags)
		default:
			env = append(env, kv)
		}
	}
	return append(env, "VMPLANE_ADDR=127.0.0.1:"+port8080, "GOFLAGS="+goflags)
}

// slowest names the n blocks that took longest, from the times file start_block
// writes (a line per block: when it started, in seconds, and where it is), for the
// test's log: what to look at first when the test grows slow.
func slowest(times string, n int) string {
	data, err := os.ReadFile(times)
	if err != nil {
		return err.Error()
	}
	type took struct {
		where string
		secs  float64
	}
	var all []took
	var prev float64
	var where string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		at, name, ok := strings.Cut(line, " ")
		sec, err := strconv.ParseFloat(at, 64)
		if !ok || err != nil {
			continue
		}
		if where != "" {
			all = append(all, took{where, sec - prev})
		}
		prev, where = sec, name
	}
	sort.Slice(all, func(i, j int) bool { return all[i].secs > all[j].secs })
	var parts []string
	for i := 0; i < n && i < len(all); i++ {
		parts = append(parts, fmt.Sprintf("%s %.1fs", all[i].where, all[i].secs))
	}
	return strings.Join(parts, ", ")
}

// copyTree copies the repository's files into to: those git tracks or would track (not
// ignored), as they are in the working tree. It returns them, relative to the root.
func copyTree(t *testing.T, from, to string) map[string]bool {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = from
	list, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the test copies the files of a git checkout)", err)
	}
	copied := map[string]bool{}
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(from, rel))
		if os.IsNotExist(err) || (err == nil && !info.Mode().IsRegular()) {
			continue // deleted in the working tree, or a symbolic link
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(from, rel))
		if err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dest, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		copied[rel] = true
	}
	return copied
}

// killSession kills every process of session sid, found in /proc (Linux; elsewhere it
// finds none and leaves the script's own cleanup to have stopped them).
func killSession(sid int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...: comm may hold spaces, so the
		// fields are counted from its closing parenthesis.
		rest := string(stat)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) > 3 && f[3] == strconv.Itoa(sid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// logsOf gathers the tails of the logs the background and streamed blocks wrote.
func logsOf(dir string) string {
	var b strings.Builder
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, l := range logs {
		f, err := os.Open(l)
		if err != nil {
			continue
		}
		var tail []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			tail = append(tail, sc.Text())
			if len(tail) > 40 {
				tail = tail[1:]
			}
		}
		f.Close()
		fmt.Fprintf(&b, "\n--- %s (last lines)\n%s\n", filepath.Base(l), strings.Join(tail, "\n"))
	}
	return b.String()
}
