package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/internal/leakcheck"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestMain lets the test binary be the vmplane binary: with VMPLANE_TEST_MAIN=1 it runs
// run() on its arguments, so the process-level tests below start, signal and kill a
// real vmplane process (flags, environment, logs and exit status as shipped) without a
// separate build. The hash-worker children serve starts are this binary too.
func TestMain(m *testing.M) {
	if os.Getenv("VMPLANE_TEST_MAIN") == "1" {
		if os.Getenv("VMPLANE_TEST_HANG_SHUTDOWN") == "1" {
			testHookShutdown = func() { select {} }
		}
		if d := os.Getenv("VMPLANE_TEST_SLOW_START"); d != "" {
			testHookStart = func() {
				fmt.Fprintln(os.Stderr, "TEST: starting slowly")
				if d == "forever" {
					select {}
				}
				// The pause is the slow start under test: it runs in the child process,
				// which the test reaches only through its environment and signals.
				delay, _ := time.ParseDuration(d)
				time.Sleep(delay)
			}
		}
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The tests that run vmplane as a child process are parallel, four at a time
	// (unless -parallel says otherwise): they mostly wait on it (a signal's effect, a
	// shutdown's deadline). Those that run it in this process stay sequential: it
	// sets process-wide things (the environment, the memory limit).
	testwait.Parallel(4)
	leakcheck.Main(m) // fails when a goroutine a test started outlives it
}

// proc is a vmplane process started by a test.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	mu     sync.Mutex
	lines  []string
	added  chan struct{} // signalled on each new line
	exited chan struct{} // closed when the process has exited
	err    error         // Wait's result, set before exited is closed
}

// baseEnv is a fast server on loopback in a fresh data directory.
func baseEnv(t *testing.T) []string {
	return []string{
		"VMPLANE_ADDR=127.0.0.1:0",
		"VMPLANE_DATA_DIR=" + t.TempDir(),
		"VMPLANE_ADMIN_PASSWORD=correct-horse-battery",
		"VMPLANE_BCRYPT_COST=4",
	}
}

// startProc starts this binary as `vmplane args...` with env added to the test's own.
func startProc(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	// GORACE: a race-enabled binary otherwise waits a second before it exits.
	cmd.Env = append(append(os.Environ(), "VMPLANE_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0"), env...)
	out, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	p := &proc{t: t, cmd: cmd, added: make(chan struct{}, 1), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.added <- struct{}{}:
			default:
			}
		}
		p.err = cmd.Wait()
		close(p.exited)
	}()
	// Whatever happens to the test, the process does not outlive it.
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("output of vmplane %s:\n%s", strings.Join(args, " "), p.output())
		}
	})
	return p
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// line waits for an output line containing s and returns it; it fails the test when
// the process exits first or nothing comes within a minute (a hang, not a timing).
func (p *proc) line(s string) string {
	p.t.Helper()
	limit := time.After(time.Minute)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if strings.Contains(l, s) {
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		select {
		case <-p.added:
		case <-p.exited:
			// The reader has seen every line by now: look once more.
			if l, ok := p.find(s); ok {
				return l
			}
			p.t.Fatalf("vmplane exited (%v) without printing %q", p.err, s)
		case <-limit:
			p.t.Fatalf("vmplane printed no %q within a minute", s)
		}
	}
}

func (p *proc) find(s string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if strings.Contains(l, s) {
			return l, true
		}
	}
	return "", false
}

// exitCode waits for the process to exit within limit and returns its status. The
// limit only catches a process that hangs: it is far above the expected time.
func (p *proc) exitCode(limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(limit):
		p.t.Fatalf("vmplane still runs %s later; want it to have exited", limit)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		p.t.Fatal(p.err)
	}
	return 0
}

func (p *proc) signal(sig os.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
}

// addr is the API address of a serving process.
func (p *proc) addr() string {
	var l struct{ Addr string }
	if err := json.Unmarshal([]byte(p.line(`"vmplane serving"`)), &l); err != nil {
		p.t.Fatal(err)
	}
	return "http://" + l.Addr
}

// blackhole is a TCP listener that accepts connections and never answers: a Proxmox
// that is reachable but hangs. accepted gets one value per connection.
func blackhole(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 64)
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), ch
}

// hangingProxmoxEnv points the proxmox driver at a listener that never answers.
func hangingProxmoxEnv(t *testing.T, requestTimeout string) ([]string, <-chan struct{}) {
	addr, accepted := blackhole(t)
	return append(baseEnv(t),
		"VMPLANE_DRIVER=proxmox",
		"VMPLANE_PROXMOX_URL=https://"+addr,
		"VMPLANE_PROXMOX_TOKEN_ID=vmplane@pve!test",
		"VMPLANE_PROXMOX_TOKEN_SECRET=00000000-0000-0000-0000-000000000000",
		"VMPLANE_PROXMOX_INSECURE=true",
		"VMPLANE_PROXMOX_REQUEST_TIMEOUT="+requestTimeout,
	), accepted
}

var isoTime = regexp.MustCompile(`"ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[Z+-]`)

// TestSIGTERMDuringFirstSync: SIGTERM shortly after "vmplane serving", while the first
// sync waits on a Proxmox that never answers, ends the process cleanly: the sync's
// driver call is cancelled instead of holding the shutdown.
func TestSIGTERMDuringFirstSync(t *testing.T) {
	t.Parallel()
	env, accepted := hangingProxmoxEnv(t, "10m")
	p := startProc(t, append(env, "VMPLANE_SHUTDOWN_TIMEOUT=2s"), "serve")
	// Log times are ISO 8601, not epoch floats.
	if l := p.line(`"vmplane serving"`); !isoTime.MatchString(l) {
		t.Fatalf("got %s; want an ISO 8601 ts", l)
	}
	<-accepted // the first sync is in flight: its driver call waits on the connection
	p.signal(syscall.SIGTERM)
	if code := p.exitCode(time.Minute); code != 0 {
		t.Fatalf("exit status %d; want 0 for a clean shutdown", code)
	}
	p.line(`"vmplane stopped"`)
}

// TestSecondSignalExitsAtOnce: while a graceful shutdown waits for a request that
// hangs on the hypervisor (and would wait for the whole 10m --shutdown-timeout), a
// second SIGTERM ends the process at once with status 1.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel()
	env, accepted := hangingProxmoxEnv(t, "10m")
	p := startProc(t, append(env, "VMPLANE_SHUTDOWN_TIMEOUT=10m", "VMPLANE_SYNC_INTERVAL=0"), "serve")
	base := p.addr()
	tok := login(t, base)
	go func() {
		req, _ := http.NewRequestWithContext(context.Background(), "POST", base+"/api/virt/sync", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	// Two connections hang: the hypervisor watcher's ping at start and the sync
	// request's. (A build without the watcher makes only the second.)
	limit := time.After(time.Minute)
	for n := 0; n < 2; n++ {
		select {
		case <-accepted:
		case <-limit:
		}
	}
	p.signal(syscall.SIGTERM)
	p.line(`"shutting down"`)
	p.signal(syscall.SIGTERM)
	if code := p.exitCode(time.Minute); code != 1 {
		t.Fatalf("exit status %d; want 1 after a second signal", code)
	}
	// The stage depends on how far the shutdown got before the second signal.
	if l := p.line("second signal"); !strings.Contains(l, `"still_running":"`) {
		t.Fatalf("got %s; want it to name what was still running", l)
	}
}

// TestShutdownDeadlineIsHard: a shutdown that hangs (a test hook blocks it) ends at
// --shutdown-timeout plus the stop grace with status 1 and a log line saying what
// was still running.
func TestShutdownDeadlineIsHard(t *testing.T) {
	t.Parallel()
	p := startProc(t, append(baseEnv(t), "VMPLANE_SHUTDOWN_TIMEOUT=1ms", "VMPLANE_TEST_HANG_SHUTDOWN=1"), "serve")
	p.line(`"vmplane serving"`)
	p.signal(syscall.SIGTERM)
	if code := p.exitCode(time.Minute); code != 1 {
		t.Fatalf("exit status %d; want 1 after the hard deadline", code)
	}
	l := p.line("shutdown deadline passed")
	if !strings.Contains(l, `"still_running":"not started"`) || !strings.Contains(l, "TestMain.func1") {
		t.Fatalf("got %s; want the stage and the goroutine that hangs", l)
	}
}

func login(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Post(base+"/api/auth/login", "application/json",
		strings.NewReader(`{"email":"admin@localhost","password":"correct-horse-battery"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var tok struct{ Token string }
	if res.StatusCode != 200 || json.Unmarshal(body, &tok) != nil {
		t.Fatalf("login: %d %s", res.StatusCode, body)
	}
	return tok.Token
}

// TestConfigErrorIsOneLine: a bad setting, from a flag or the environment, stops
// `vmplane serve` with status 2 and one line naming the flag, the variable, the value
// and what is allowed; no stack trace. Proxmox settings are named as settings, not as
// the driver's Go fields.
func TestConfigErrorIsOneLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  []string
		args []string
		want []string
	}{
		{"env not a number", []string{"VMPLANE_BCRYPT_COST=abc"}, nil,
			[]string{"--bcrypt-cost", "VMPLANE_BCRYPT_COST", `"abc"`, "must be an integer"}},
		{"flag out of range", nil, []string{"--bcrypt-cost", "40"},
			[]string{"--bcrypt-cost", "VMPLANE_BCRYPT_COST", `"40"`, "must be 4..31"}},
		{"flag not a duration", nil, []string{"--shutdown-timeout=soon"},
			[]string{"--shutdown-timeout", "VMPLANE_SHUTDOWN_TIMEOUT", `"soon"`, "a duration"}},
		{"unknown driver", []string{"VMPLANE_DRIVER=xen"}, nil,
			[]string{"--driver", "VMPLANE_DRIVER", `"xen"`, "must be sim or proxmox"}},
		{"bad log level", nil, []string{"--log-level", "loud"},
			[]string{"--log-level", "VMPLANE_LOG_LEVEL", `"loud"`, "debug, info, warn or error"}},
		{"proxmox token missing", []string{"VMPLANE_DRIVER=proxmox", "VMPLANE_PROXMOX_URL=https://127.0.0.1:1"}, nil,
			[]string{"VMPLANE_PROXMOX_TOKEN_ID (--proxmox-token-id)", "VMPLANE_PROXMOX_TOKEN_SECRET (--proxmox-token-secret)"}},
		{"proxmox token malformed", []string{"VMPLANE_DRIVER=proxmox", "VMPLANE_PROXMOX_URL=https://127.0.0.1:1",
			"VMPLANE_PROXMOX_TOKEN_ID=root", "VMPLANE_PROXMOX_TOKEN_SECRET=s"}, nil,
			[]string{"VMPLANE_PROXMOX_TOKEN_ID (--proxmox-token-id)", `"root"`, "user@realm!tokenname"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startProc(t, append(baseEnv(t), tc.env...), append([]string{"serve"}, tc.args...)...)
			if code := p.exitCode(time.Minute); code != 2 {
				t.Fatalf("exit status %d; want 2", code)
			}
			out := strings.TrimSpace(p.output())
			if strings.Count(out, "\n") != 0 || strings.Contains(out, "stacktrace") || strings.Contains(out, "goroutine") {
				t.Fatalf("got\n%s\nwant one line", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Fatalf("got %s; want it to contain %s", out, w)
				}
			}
			for _, field := range []string{"TokenID", "TokenSecret"} {
				if strings.Contains(strings.ReplaceAll(out, "TOKEN_", ""), field) {
					t.Fatalf("got %s; it names the Go field %s", out, field)
				}
			}
		})
	}
}

// TestServeHelpMentionsProxmox: `vmplane serve -h` explains the proxmox driver and its
// settings, and exits 0.
func TestServeHelpMentionsProxmox(t *testing.T) {
	t.Parallel()
	p := startProc(t, nil, "serve", "-h")
	if code := p.exitCode(time.Minute); code != 0 {
		t.Fatalf("exit status %d; want 0", code)
	}
	out := p.output()
	for _, w := range []string{"--driver proxmox", "-proxmox-token-id", "VMPLANE_PROXMOX_URL", "vmplane proxmox check"} {
		if !strings.Contains(out, w) {
			t.Fatalf("serve -h does not mention %s:\n%s", w, out)
		}
	}
}

// TestAdminPasswordLifecycle: a first start that fails after creating the admin does
// not lose its generated password (the next start shows it, after "serving"); a
// changed VMPLANE_ADMIN_PASSWORD on a later start is reported as ignored; `vmplane
// admin reset-password` refuses a data directory in use and otherwise sets the
// password, ending the old one.
func TestAdminPasswordLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"VMPLANE_DATA_DIR=" + dir, "VMPLANE_BCRYPT_COST=4", "VMPLANE_ADMIN_PASSWORD="}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()

	// 1. The admin is created, then listening for the profiles fails (the API's own
	// address is bound before anything is written: TestAddressTaken).
	p := startProc(t, append(env, "VMPLANE_ADDR=127.0.0.1:0", "VMPLANE_PPROF_ADDR="+taken.Addr().String()), "serve")
	if code := p.exitCode(time.Minute); code != 1 {
		t.Fatalf("exit status %d; want 1 when the pprof address is taken", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		t.Fatalf("no store after a start that failed late: %v\n%s", err, p.output())
	}
	if _, shown := p.find(`"password"`); shown {
		t.Fatalf("a start that failed showed the password:\n%s", p.output())
	}

	// 2. The next start shows it, once it serves.
	p = startProc(t, append(env, "VMPLANE_ADDR=127.0.0.1:0"), "serve")
	base := p.addr()
	var shown struct{ Email, Password string }
	if err := json.Unmarshal([]byte(p.line("generated password")), &shown); err != nil || shown.Password == "" {
		t.Fatalf("no generated password after serving: %v\n%s", err, p.output())
	}
	if !strings.Contains(p.output()[strings.Index(p.output(), `"vmplane serving"`):], "generated password") {
		t.Fatal("the generated password was logged before the server served")
	}
	loginAs(t, base, shown.Email, shown.Password, 200)
	// ... and leaves it in a file only its owner reads, for an appliance's console.
	file := filepath.Join(dir, "initial-admin-password")
	if data, err := os.ReadFile(file); err != nil || string(data) != shown.Password+"\n" {
		t.Fatalf("the password file holds %q, %v; want the generated password", data, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the password file: %v, %v; want mode 0600", fi, err)
	}
	if l := p.line("generated password"); !strings.Contains(l, file) {
		t.Fatalf("got %s; want the log to name the password file", l)
	}
	stop(t, p)

	// 3. A later start with another VMPLANE_ADMIN_PASSWORD: ignored, and says so.
	p = startProc(t, append(env, "VMPLANE_ADDR=127.0.0.1:0", "VMPLANE_ADMIN_PASSWORD=another-password"), "serve")
	base = p.addr()
	if l := p.line("is ignored"); !strings.Contains(l, "VMPLANE_ADMIN_PASSWORD") || !strings.Contains(l, `"level":"warn"`) {
		t.Fatalf("got %s; want a warning naming VMPLANE_ADMIN_PASSWORD", l)
	}
	if _, again := p.find("generated password"); again {
		t.Fatal("the generated password was shown a second time")
	}
	loginAs(t, base, shown.Email, "another-password", 401)
	// The server holds the data directory: reset-password refuses it.
	r := startProc(t, env, "admin", "reset-password", "--data-dir", dir, "--password-stdin")
	if code := r.exitCode(time.Minute); code != 1 || !strings.Contains(r.output(), fmt.Sprintf("in use by vmplane process %d", p.cmd.Process.Pid)) {
		t.Fatalf("reset-password on a running server: status %d\n%s", code, r.output())
	}
	stop(t, p)

	// 4. With the server stopped it sets the password.
	cmd := exec.Command(os.Args[0], "admin", "reset-password", "--data-dir", dir, "--email", "ADMIN@localhost", "--password-stdin")
	cmd.Env = append(os.Environ(), "VMPLANE_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0", "VMPLANE_BCRYPT_COST=4")
	cmd.Stdin = strings.NewReader("brand-new-password\n")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "password of admin@localhost reset") {
		t.Fatalf("reset-password: %v\n%s", err, out)
	}
	// The file no longer opens anything, so it is gone.
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the password file after reset-password: %v; want it removed", err)
	}
	p = startProc(t, append(env, "VMPLANE_ADDR=127.0.0.1:0"), "serve")
	base = p.addr()
	loginAs(t, base, "admin@localhost", "brand-new-password", 200)
	loginAs(t, base, "admin@localhost", shown.Password, 401)
}

// stop ends a serving process with SIGTERM and expects a clean exit.
func stop(t *testing.T, p *proc) {
	t.Helper()
	p.signal(syscall.SIGTERM)
	if code := p.exitCode(time.Minute); code != 0 {
		t.Fatalf("exit status %d after SIGTERM; want 0", code)
	}
}

func loginAs(t *testing.T, base, email, password string, want int) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"email": email, "password": password})
	res, err := http.Post(base+"/api/auth/login", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != want {
		t.Fatalf("login as %s: status %d; want %d", email, res.StatusCode, want)
	}
}

// TestAddressTaken: with the API's address taken, serve fails in one line, with
// status 1, before it opens the store, creates the first admin or syncs: the data
// directory stays empty.
func TestAddressTaken(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := filepath.Join(t.TempDir(), "data")
	p := startProc(t, append(baseEnv(t), "VMPLANE_DATA_DIR="+dir, "VMPLANE_ADDR="+taken.Addr().String()), "serve")
	if code := p.exitCode(time.Minute); code != 1 {
		t.Fatalf("exit status %d; want 1", code)
	}
	want := "vmplane: listen " + taken.Addr().String() + ": address already in use"
	if out := p.output(); out != want {
		t.Fatalf("output:\n%s\nwant the one line %q", out, want)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the data directory: %v; want it not created", err)
	}
}

// TestProxmoxCheck: `vmplane proxmox check` reports a reachable Proxmox whose token
// holds everything (0), names each missing privilege (1), and says why it cannot
// check a refused token or a Proxmox that does not answer (1).
func TestProxmoxCheck(t *testing.T) {
	t.Parallel()
	full := pvefake.New(pvefake.Config{})
	t.Cleanup(full.Close)
	partial := pvefake.New(pvefake.Config{Permissions: map[string][]string{
		"/vms":     {"VM.Audit", "VM.PowerMgmt"},
		"/":        {"Sys.Audit"},
		"/storage": {"Datastore.Audit", "Datastore.AllocateSpace"},
	}})
	t.Cleanup(partial.Close)
	envOf := func(f *pvefake.Server, secret string) []string {
		return []string{"VMPLANE_PROXMOX_URL=" + f.URL(), "VMPLANE_PROXMOX_TOKEN_ID=" + f.TokenID(),
			"VMPLANE_PROXMOX_TOKEN_SECRET=" + secret, "VMPLANE_PROXMOX_FINGERPRINT=" + f.Fingerprint()}
	}
	check := func(env []string, wantCode int, want ...string) {
		t.Helper()
		p := startProc(t, env, "proxmox", "check")
		if code := p.exitCode(time.Minute); code != wantCode {
			t.Fatalf("exit status %d; want %d\n%s", code, wantCode, p.output())
		}
		for _, w := range want {
			if !strings.Contains(p.output(), w) {
				t.Fatalf("got\n%s\nwant it to contain %q", p.output(), w)
			}
		}
	}
	check(envOf(full, full.TokenSecret()), 0, "Proxmox VE 9.1.1", "holds every privilege")
	check(envOf(partial, partial.TokenSecret()), 1, "MISSING  VM.Backup", "MISSING  VM.Allocate", "MISSING  VM.Config.CDROM", "MISSING  Sys.Modify", "lacks 14 privilege(s)")
	check(envOf(full, "00000000-0000-0000-0000-00000000dead"), 1, "FAIL")
	addr, _ := blackhole(t)
	check([]string{"VMPLANE_PROXMOX_URL=https://" + addr, "VMPLANE_PROXMOX_TOKEN_ID=a@pve!x", "VMPLANE_PROXMOX_TOKEN_SECRET=s",
		"VMPLANE_PROXMOX_INSECURE=true", "VMPLANE_PROXMOX_REQUEST_TIMEOUT=300ms"}, 1, "FAIL")
	check([]string{"VMPLANE_PROXMOX_URL=https://" + addr}, 2, "VMPLANE_PROXMOX_TOKEN_ID (--proxmox-token-id)")
}

// TestSignalWhileStarting: SIGTERM while the server is still starting is not lost:
// the start finishes and the server shuts down cleanly; a start that hangs ends at a
// second signal.
func TestSignalWhileStarting(t *testing.T) {
	t.Parallel()
	p := startProc(t, append(baseEnv(t), "VMPLANE_TEST_SLOW_START=500ms"), "serve")
	p.line("TEST: starting slowly")
	p.signal(syscall.SIGTERM)
	if code := p.exitCode(time.Minute); code != 0 {
		t.Fatalf("exit status %d; want 0", code)
	}
	p.line("signal while starting")
	p.line(`"vmplane stopped"`)

	p = startProc(t, append(baseEnv(t), "VMPLANE_TEST_SLOW_START=forever"), "serve")
	p.line("TEST: starting slowly")
	p.signal(syscall.SIGTERM)
	p.line("signal while starting")
	p.signal(syscall.SIGTERM)
	if code := p.exitCode(time.Minute); code != 1 {
		t.Fatalf("exit status %d; want 1 after a second signal", code)
	}
	p.line("second signal while starting")
}

// TestSecondProcessOnDataDir: a second `vmplane serve` on a data directory a running
// server holds exits at once, status 1, with one line naming the directory and the
// holder's pid (not Badger's lock error); so does `vmplane admin reset-password`. The
// first server is unharmed, and once it stopped the directory can be opened again.
func TestSecondProcessOnDataDir(t *testing.T) {
	t.Parallel()
	env := baseEnv(t)
	dir := strings.TrimPrefix(env[1], "VMPLANE_DATA_DIR=")
	first := startProc(t, env, "serve")
	base := first.addr()
	want := fmt.Sprintf("data directory %s is in use by vmplane process %d", dir, first.cmd.Process.Pid)

	second := startProc(t, env, "serve")
	if code := second.exitCode(time.Minute); code != 1 {
		t.Fatalf("second serve: exit status %d; want 1", code)
	}
	out := strings.TrimSpace(second.output())
	if out != "vmplane: "+want {
		t.Fatalf("second serve printed\n%s\nwant the one line %q", out, "vmplane: "+want)
	}

	r := startProc(t, env, "admin", "reset-password", "--password-stdin")
	if code := r.exitCode(time.Minute); code != 1 || !strings.Contains(r.output(), want) ||
		strings.Contains(r.output(), "Badger") || strings.Contains(r.output(), "Cannot acquire") {
		t.Fatalf("reset-password on a held directory: status %d\n%s\nwant status 1 and %q", code, r.output(), want)
	}

	res, err := http.Get(base + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("the first server after the second start: health %d", res.StatusCode)
	}
	stop(t, first)
	third := startProc(t, env, "serve")
	third.addr()
	stop(t, third)
}

// TestSystemdNotify: under systemd's Type=notify (a unixgram socket in
// $NOTIFY_SOCKET) serve reports its start, READY=1 once the API answers, WATCHDOG=1
// pings when $WATCHDOG_USEC asks for them, and STOPPING=1 at SIGTERM, then exits 0.
func TestSystemdNotify(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "sd") // t.TempDir() can exceed a socket path's 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := dir + "/notify"
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// next returns the next datagram; the deadline only catches one that never comes.
	next := func() string {
		t.Helper()
		buf := make([]byte, 4096)
		_ = c.SetReadDeadline(time.Now().Add(time.Minute))
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("no notification: %v", err)
		}
		return string(buf[:n])
	}
	// upTo reads datagrams until one contains want and returns it.
	upTo := func(want string) string {
		t.Helper()
		for {
			if m := next(); strings.Contains(m, want) {
				return m
			}
		}
	}

	p := startProc(t, append(baseEnv(t), "NOTIFY_SOCKET="+sock, "WATCHDOG_USEC=1000000"), "serve")
	if m := next(); !strings.HasPrefix(m, "STATUS=starting") {
		t.Fatalf("first notification %q; want the starting status", m)
	}
	ready := next()
	base := p.addr()
	if want := "READY=1\nSTATUS=serving on " + strings.TrimPrefix(base, "http://") + "\n"; ready != want {
		t.Fatalf("got %q; want %q", ready, want)
	}
	res, err := http.Get(base + "/api/health")
	if err != nil {
		t.Fatalf("health after READY=1: %v", err)
	}
	res.Body.Close()
	// A check that failed under load would send a status first, not a ping.
	if m := upTo("WATCHDOG=1"); m != "WATCHDOG=1\n" && !strings.HasPrefix(m, "WATCHDOG=1\nSTATUS=serving on ") {
		t.Fatalf("got %q; want a watchdog ping", m)
	}
	p.signal(syscall.SIGTERM)
	if m := upTo("STOPPING=1"); m != "STOPPING=1\nSTATUS=shutting down\n" {
		t.Fatalf("got %q", m)
	}
	if code := p.exitCode(time.Minute); code != 0 {
		t.Fatalf("exit status %d; want 0", code)
	}
}
