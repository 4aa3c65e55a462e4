package app_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// The mixed-version cluster test: a rolling upgrade from the previous release to this
// source tree, under load, as an operator runs it (docs/operating.md, "Upgrading a
// cluster"). It speaks to vmplane only as its users do, over HTTP and through the
// process's environment, so that it keeps testing the same promises however the code
// behind them changes. It builds two binaries and runs member processes, so it runs
// only when asked for: `make test-upgrade` sets VMPLANE_UPGRADE_FROM to the commit of
// the previous release (the Makefile holds that pin).

// upgradeFromEnv names the commit whose build plays the previous release.
const upgradeFromEnv = "VMPLANE_UPGRADE_FROM"

// upgradeToEnv, when set, names a commit to upgrade to instead of this tree: a branch's
// tip, say, to try its roll before it is merged.
const upgradeToEnv = "VMPLANE_UPGRADE_TO"

// upgradeLogsEnv, when set, names a directory the members' whole logs are copied to at
// the test's end: a failure prints only their last lines.
const upgradeLogsEnv = "VMPLANE_UPGRADE_LOGS"

// Bounds of the waits on processes: far above what they take, so that only a member
// that hangs reaches them.
const (
	// upgradeBuildTimeout bounds one `go build` of cmd/vmplane: a cold build cache on
	// a loaded machine takes minutes; a warm one seconds.
	upgradeBuildTimeout = 10 * time.Minute
	// upgradeStartTimeout bounds a member's start, from exec to its API answering.
	upgradeStartTimeout = time.Minute
	// upgradeStopTimeout bounds a graceful stop: the members run with a 10 s shutdown
	// deadline, after which a member ends itself 10 s later whatever still runs.
	upgradeStopTimeout = time.Minute
)

// TestUpgradeMixedVersionCluster rolls a cluster from the previous release to this
// source tree under load. The previous release is the commit VMPLANE_UPGRADE_FROM
// names, checked out with `git worktree` and built; this tree (or the commit
// VMPLANE_UPGRADE_TO names) is built too. On one
// embedded etcd, members m1 and m2 run the previous release and m3 this tree; then m1
// and m2 are replaced one at a time (SIGTERM, then the new binary started under the
// same name and data directory), until every member runs this tree. Throughout, the
// tenants' clients work through every member as a load balancer's clients do: firewall
// rules, machines created, stopped, started and resized, power and backup schedules,
// health checks, token refreshes, every POST with an Idempotency-Key. The balancer
// tries another member after a refused connection or a "runs an older version" answer,
// and tries again after "still in progress": nothing else. The test fails on any 5xx,
// on a request left without an answer, on an acknowledged record missing or changed
// once every member runs this tree, on a record another tenant can read, and on a
// refresh token from before the roll that no longer works after it. One outcome the
// API documents for a member's stop is let through and counted: a task failed because
// its member stopped while it ran (see errInterrupted).
func TestUpgradeMixedVersionCluster(t *testing.T) {
	from := os.Getenv(upgradeFromEnv)
	if from == "" {
		t.Skip(upgradeFromEnv + " is not set: `make test-upgrade` runs this test")
	}
	// The test runs in app/; the module's root is the tree under test.
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	mustBeCommit(t, root, upgradeFromEnv, from)
	headSrc, headVersion := root, "upgrade-head"
	if to := os.Getenv(upgradeToEnv); to != "" {
		mustBeCommit(t, root, upgradeToEnv, to)
		headSrc, headVersion = checkoutAt(t, root, to, "next"), "upgrade-to-"+to
	}

	bins := t.TempDir()
	newBin := buildVmplane(t, headSrc, filepath.Join(bins, "vmplane-head"), headVersion)
	oldBin := buildVmplane(t, checkoutAt(t, root, from, "previous"), filepath.Join(bins, "vmplane-old"), "upgrade-from-"+from)

	etcd := etcdtest.Start(t)
	c := newUpgradeCluster(t, strings.Join(etcd.Endpoints(), ","))
	lb := newBalancer()
	t.Cleanup(lb.client.CloseIdleConnections)

	// m1 starts alone, so that the previous release creates the admin, the signing key
	// and the simulated cluster, as in a cluster that ran it before the upgrade; then
	// m2 of the previous release and m3, the first member of the new one, join it.
	m1 := c.start("m1", "previous", oldBin)
	c.waitServing(m1, "m1")
	m2 := c.start("m2", "previous", oldBin)
	m3 := c.start("m3", "head", newBin)
	for _, m := range []*upgradeMember{m1, m2, m3} {
		c.waitServing(m, "m1", "m2", "m3")
		lb.add(m)
	}
	for _, m := range []*upgradeMember{m1, m2, m3} {
		t.Logf("%s runs %s (%s)", m.name, m.release, m.version(t))
	}

	w := newUpgradeWorkload(t, lb, 3)
	w.setUp(m1)
	w.run()
	defer w.stop() // the workers end whatever happens to the test
	w.waitProgress("the workload under the mixed cluster", 20)

	// The roll: one member at a time, as docs/operating.md tells an operator.
	for _, name := range []string{"m1", "m2"} {
		old := c.members[name]
		c.stop(old, lb)
		m := c.start(name, "head", newBin)
		c.waitServing(m, "m1", "m2", "m3")
		lb.add(m)
		t.Logf("%s replaced by a member of the new release (%s)", name, m.version(t))
		w.waitProgress("the workload after "+name+" was replaced", 12)
	}
	w.stop()

	for _, m := range c.members {
		if m.release != "head" {
			t.Fatalf("%s still runs the previous release after the roll", m.name)
		}
	}
	w.check()
	lb.report(t)
}

// upgradeCluster is the member processes of one test, by name.
type upgradeCluster struct {
	t       *testing.T
	etcd    string // client URLs, comma-separated
	dir     string // data directories and logs
	members map[string]*upgradeMember
	starts  int
}

// upgradeMember is one member process.
type upgradeMember struct {
	name    string
	release string // "previous" or "head"
	cmd     *exec.Cmd
	logPath string
	base    string        // http://host:port of its API
	exited  chan struct{} // closed once the process has exited
}

func newUpgradeCluster(t *testing.T, etcd string) *upgradeCluster {
	c := &upgradeCluster{t: t, etcd: etcd, dir: t.TempDir(), members: map[string]*upgradeMember{}}
	// A failed test shows what each member logged last: the members' logs are where a
	// 5xx or a slow failover is explained.
	t.Cleanup(func() {
		if dir := os.Getenv(upgradeLogsEnv); dir != "" {
			c.keepLogs(dir)
		}
		if !t.Failed() {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(c.members)) {
			t.Logf("last lines of %s's log (%s):\n%s", name, c.members[name].logPath, tail(c.members[name].logPath, 40))
		}
	})
	return c
}

// keepLogs copies every member's log (one file per process started) into dir.
func (c *upgradeCluster) keepLogs(dir string) {
	logs, _ := filepath.Glob(filepath.Join(c.dir, "*.log"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Errorf("%s: %v", upgradeLogsEnv, err)
		return
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(l)), b, 0o644)
		}
		if err != nil {
			c.t.Errorf("%s: %v", upgradeLogsEnv, err)
		}
	}
	c.t.Logf("the members' logs are in %s", dir)
}

// upgradeEnv is the environment of every member, in settings both releases read:
// variables, not flags, since the command line may change between releases. Rate
// limits are off (one client address sends everything), hashing is cheap, machines
// operations are quick but not instant, and nothing runs on a timer that the test
// does not ask for (usage history).
func (c *upgradeCluster) upgradeEnv(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		// The test's own settings (this test's variable, a developer's VMPLANE_CONFIG)
		// are not the members'.
		if !strings.HasPrefix(kv, "VMPLANE_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"VMPLANE_ADDR=127.0.0.1:0",
		"VMPLANE_DATA_DIR="+filepath.Join(c.dir, name),
		"VMPLANE_ETCD_ENDPOINTS="+c.etcd,
		"VMPLANE_NODE_NAME="+name,
		"VMPLANE_CLUSTER_ADDR=127.0.0.1:0",
		"VMPLANE_ADMIN_EMAIL="+upgradeAdminEmail,
		"VMPLANE_ADMIN_PASSWORD="+upgradeAdminPassword,
		"VMPLANE_BCRYPT_COST=4",
		"VMPLANE_RATE_GLOBAL=0",
		"VMPLANE_RATE_AUTH=0",
		"VMPLANE_RATE_LOGIN=0",
		"VMPLANE_RATE_LOGIN_ADDR=0",
		"VMPLANE_MAX_CONNS_PER_ADDR=0",
		"VMPLANE_SIM_MACHINES=2",
		"VMPLANE_SIM_OP_DELAY=20ms",
		"VMPLANE_HISTORY_INTERVAL=0",
		"VMPLANE_SHUTDOWN_TIMEOUT=10s",
		"VMPLANE_LOG_FORMAT=json",
		"VMPLANE_LOG_LEVEL=info",
	)
}

// start starts bin as member name and returns once it printed its API's address. The
// member runs in a process group of its own, killed whole at the test's end (its
// password-hashing children with it), whatever happened.
func (c *upgradeCluster) start(name, release, bin string) *upgradeMember {
	t := c.t
	t.Helper()
	c.starts++
	if err := os.MkdirAll(filepath.Join(c.dir, name), 0o700); err != nil {
		t.Fatal(err)
	}
	m := &upgradeMember{name: name, release: release, exited: make(chan struct{}),
		logPath: filepath.Join(c.dir, fmt.Sprintf("%02d-%s-%s.log", c.starts, name, release))}
	logFile, err := os.Create(m.logPath)
	if err != nil {
		t.Fatal(err)
	}
	m.cmd = exec.Command(bin, "serve")
	m.cmd.Env = c.upgradeEnv(name)
	m.cmd.Stdout, m.cmd.Stderr = logFile, logFile
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = m.cmd.Start()
	logFile.Close() // the child has its own copy
	if err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		_ = m.cmd.Wait()
		close(m.exited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-m.exited:
		case <-time.After(upgradeStopTimeout):
			t.Errorf("%s did not exit after SIGKILL", name)
		}
	})
	c.members[name] = m
	ok := testwait.Poll(upgradeStartTimeout, func() bool {
		select {
		case <-m.exited:
			return true
		default:
		}
		m.base = servingAddr(m.logPath)
		return m.base != ""
	})
	switch {
	case m.base != "":
		return m
	case ok: // exited
		t.Fatalf("%s (%s) exited while starting (%v); its log:\n%s", name, release, m.cmd.ProcessState, tail(m.logPath, 40))
	default:
		t.Fatalf("%s (%s) logged no address in %s; its log:\n%s", name, release, upgradeStartTimeout, tail(m.logPath, 40))
	}
	return nil
}

// servingAddr is the API's base URL from the log line "vmplane serving", or "".
func servingAddr(logPath string) string {
	f, err := os.Open(logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "vmplane serving" && line.Addr != "" {
			return "http://" + line.Addr
		}
	}
	return ""
}

// upgradeHealth is what the test reads of /api/health.
type upgradeHealth struct {
	Status  string `json:"status"`
	Version string `json:"version"`
	Cluster *struct {
		Node    string `json:"node"`
		Members []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
		} `json:"members"`
	} `json:"cluster"`
}

// healthClient asks for health as a load balancer's check does: a connection each time,
// none kept open after the test.
var healthClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

func health(base string) (upgradeHealth, error) {
	var h upgradeHealth
	res, err := healthClient.Get(base + "/api/health")
	if err != nil {
		return h, err
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil {
		return h, err
	}
	if res.StatusCode != 200 {
		return h, fmt.Errorf("health %d %s", res.StatusCode, h.Status)
	}
	return h, nil
}

// waitServing waits until m's health is 200 and lists exactly the members names, all
// alive: what a load balancer's health check and an operator's look at the member
// list wait for before the next step.
func (c *upgradeCluster) waitServing(m *upgradeMember, names ...string) {
	c.t.Helper()
	testwait.Until(c.t, func() error {
		select {
		case <-m.exited:
			return fmt.Errorf("%s exited (%v); its log:\n%s", m.name, m.cmd.ProcessState, tail(m.logPath, 40))
		default:
		}
		h, err := health(m.base)
		if err != nil {
			return fmt.Errorf("%s: %v", m.name, err)
		}
		if h.Cluster == nil {
			return fmt.Errorf("%s: health has no cluster section: not a cluster member", m.name)
		}
		var got []string
		for _, mem := range h.Cluster.Members {
			if mem.Status == "alive" {
				got = append(got, mem.Name)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, names) {
			return fmt.Errorf("%s sees members %v alive; want %v", m.name, got, names)
		}
		return nil
	})
}

// version is the version m's health reports, for the log.
func (m *upgradeMember) version(t *testing.T) string {
	h, err := health(m.base)
	if err != nil {
		t.Fatalf("%s: %v", m.name, err)
	}
	return h.Version
}

// stop stops m as systemd would for an upgrade (SIGTERM) and waits for it to exit
// with status 0; the balancer stops sending to it once it has exited (until then its
// refused connections are retried elsewhere, as a load balancer does between its
// health checks).
func (c *upgradeCluster) stop(m *upgradeMember, lb *balancer) {
	c.t.Helper()
	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		c.t.Fatalf("SIGTERM to %s: %v", m.name, err)
	}
	select {
	case <-m.exited:
	case <-time.After(upgradeStopTimeout):
		c.t.Fatalf("%s still runs %s after SIGTERM; its log:\n%s", m.name, upgradeStopTimeout, tail(m.logPath, 40))
	}
	lb.remove(m)
	if code := m.cmd.ProcessState.ExitCode(); code != 0 {
		c.t.Errorf("%s exited with status %d after SIGTERM; want 0; its log:\n%s", m.name, code, tail(m.logPath, 40))
	}
}

// buildVmplane builds src's cmd/vmplane into out with version stamped, and returns
// out. -trimpath makes the two builds share the build cache: what did not change
// between the two trees is compiled once.
func buildVmplane(t *testing.T, src, out, version string) string {
	t.Helper()
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-X github.com/vmplane/vmplane/app.Version="+version, "-o", out, "./cmd/vmplane")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	done := make(chan struct{})
	timer := time.AfterFunc(upgradeBuildTimeout, func() {
		_ = cmd.Process.Kill()
		close(done)
	})
	b, err := cmd.CombinedOutput()
	if !timer.Stop() {
		<-done
		t.Fatalf("building %s's cmd/vmplane took more than %s", src, upgradeBuildTimeout)
	}
	if err != nil {
		t.Fatalf("building %s's cmd/vmplane: %v\n%s", src, err, b)
	}
	return out
}

// mustBeCommit fails the test with one line when the repository at root lacks commit,
// which the variable env named.
func mustBeCommit(t *testing.T, root, env, commit string) {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "cat-file", "-e", commit+"^{commit}").CombinedOutput(); err != nil {
		t.Fatalf("%s=%s is not a commit of this repository (a shallow clone?): get the history with `git fetch --unshallow` (or `git fetch origin %s`) and run again (git: %s)",
			env, commit, commit, strings.TrimSpace(string(out)))
	}
}

// checkoutAt checks commit out of the repository at root into a temporary worktree
// named name, removed (and pruned from the repository's list) when the test ends.
func checkoutAt(t *testing.T, root, commit, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("git", "-C", root, "worktree", "add", "--detach", dir, commit).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add %s: %v\n%s", commit, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("git", "-C", root, "worktree", "remove", "--force", dir).CombinedOutput(); err != nil {
			t.Errorf("git worktree remove %s: %v\n%s", dir, err, out)
		}
		_ = exec.Command("git", "-C", root, "worktree", "prune").Run()
	})
	return dir
}

// tail is the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
