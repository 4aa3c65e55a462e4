package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestHelperServerProcess is not a test: it is the server process that
// TestCrashKeepsAcknowledgedWrites starts and kills.
func TestHelperServerProcess(t *testing.T) {
	dir := os.Getenv("VMPLANE_TEST_CHILD_DIR")
	if dir == "" {
		t.Skip("runs only as the child of TestCrashKeepsAcknowledgedWrites")
	}
	cfg := testConfig(t)
	cfg.DataDir = dir
	a, err := Start(cfg, nil, nil)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	fmt.Println("ADDR", a.Addr())
	select {} // until killed
}

func startChild(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	return startChildProcess(t, "^TestHelperServerProcess$", "VMPLANE_TEST_CHILD_DIR="+dir)
}

// startChildProcess runs this test binary's helper test run (a server) as a process
// with env added, and returns it once it printed its API address.
func startChildProcess(t *testing.T, run string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+run)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Whatever happens to the test, the child server does not outlive it.
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
			go func() {
				for sc.Scan() {
				}
			}()
			return cmd, "http://" + addr
		}
		if strings.HasPrefix(sc.Text(), "ERROR") {
			t.Fatal(sc.Text())
		}
	}
	t.Fatal("the child server printed no address")
	return nil, ""
}

// TestCrashKeepsAcknowledgedWrites kills the server process with SIGKILL while many
// clients log in (each login is a durable write of a refresh-token family) and a tenant
// provisions machines on the sim driver, restarts it on the same data directory, and
// checks that every login that was answered 200 is there, and every machine whose
// provisioning task was seen to succeed, on the simulated hypervisor too.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	cmd, base := startChild(t, dir)

	// A second server on the same data directory is refused, not let in to corrupt it.
	cfg := testConfig(t)
	cfg.DataDir = dir
	if a, err := Start(cfg, nil, nil); err == nil {
		a.Shutdown(context.Background())
		t.Fatal("a second server started on a data directory in use; want it refused")
	} else if !errors.Is(err, apierr.ErrUnavailable) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("got %v; want an unavailable error saying the directory is in use", err)
	}

	var (
		mu       sync.Mutex
		acked    []string
		machines []provisioned
		wg       sync.WaitGroup
	)
	stop := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	child := &testServer{t: t, base: base, client: &http.Client{Timeout: 30 * time.Second}}
	childAdmin := child.adminToken()
	child.sync(childAdmin)
	ten := child.tenant(childAdmin, "Crash", map[string]int{"machines": 1000, "cpu_cores": 100000, "memory_mb": 1 << 30, "disk_gb": 1 << 20})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ { // enough to be killed among, few enough to check quickly
			select {
			case <-stop:
				return
			default:
			}
			if p, ok := tryProvision(client, base, ten.Token, fmt.Sprintf("crash-%d", i)); ok {
				mu.Lock()
				machines = append(machines, p)
				mu.Unlock()
			}
		}
	}()
	for w := 0; w < 16; w++ {
		// An operator of its own per worker: a user holds at most auth.MaxSessions
		// logins, and one user's 150th would end its first, acknowledged or not.
		email := fmt.Sprintf("worker-%d@example.test", w)
		expect(t, child.do(req{method: "POST", path: "/api/resources/users", token: childAdmin, body: map[string]any{
			"email": email, "name": "Worker", "role": "admin", "password": "worker-password"}}), 201, "")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rt, ok := tryLogin(client, base, email, "worker-password")
				if !ok {
					continue
				}
				mu.Lock()
				acked = append(acked, rt)
				mu.Unlock()
			}
		}()
	}
	// Kill once a good number of writes were acknowledged, while writes are in flight.
	killWhen(t, cmd, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 150 && len(machines) >= 3
	})
	close(stop)
	wg.Wait()
	if len(acked) < 50 || len(machines) == 0 {
		t.Fatalf("got %d acknowledged logins and %d provisioned machines before the kill; want at least 50 and 1", len(acked), len(machines))
	}

	// A new simulated cluster, as a new process builds it: its world comes from the store.
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}}
	s.cfg.DataDir = dir
	s.start()
	t.Cleanup(s.stop)
	for _, rt := range acked {
		expect(t, refresh(s, rt), 200, "")
	}
	if res := s.sync(s.adminToken()); res.Machines.Removed != 0 {
		t.Fatalf("got sync %+v after the crash; want no machine removed", res)
	}
	tok := s.login("crash@example.test", "tenant-password").Token
	for _, p := range machines {
		m := s.resourceMachine(tok, p.ID)
		hv, err := s.sim.Machine(t.Context(), hypervisorRef(m))
		if m.VMID != p.VMID || err != nil || hv.State != hypervisor.StateRunning {
			t.Fatalf("machine %s (vmid %d) after the crash: got vmid %d, on the hypervisor %+v, %v; want it there, running",
				p.ID, p.VMID, m.VMID, hv, err)
		}
	}
}

// killWhen sends the child server SIGKILL once enough is true (or after 20 s, for a
// slow machine: the caller checks what it got) and waits for it to end, which frees the
// data directory's lock.
func killWhen(t *testing.T, cmd *exec.Cmd, enough func() bool) {
	t.Helper()
	testwait.Poll(20*time.Second, enough)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// provisioned is a machine whose provisioning task was seen to succeed.
type provisioned struct {
	ID   string
	VMID int
}

// tryProvision provisions a machine as a tenant and waits for its task, without
// failing the test: the server may be killed at any moment.
func tryProvision(client *http.Client, base, tok, name string) (provisioned, bool) {
	call := func(method, path string, body any, v any) int {
		var rd io.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			rd = bytes.NewReader(raw)
		}
		hr, _ := http.NewRequest(method, base+path, rd)
		hr.Header.Set("Authorization", "Bearer "+tok)
		if body != nil {
			hr.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(hr)
		if err != nil {
			return 0
		}
		defer res.Body.Close()
		if jsonDecode(res, v) != nil {
			return 0
		}
		return res.StatusCode
	}
	spec := map[string]any{"name": name, "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10}
	var p tenants.Provisioned
	if call("POST", "/api/client/machines", spec, &p) != 202 {
		return provisioned{}, false
	}
	var task tasks.Task
	testwait.Poll(testwait.Timeout, func() bool {
		task = tasks.Task{}
		return call("GET", "/api/tasks/"+p.Task.ID, nil, &task) != 200 || task.Finished()
	})
	if task.Status != tasks.TaskSucceeded {
		return provisioned{}, false
	}
	var m machines.Machine
	if call("GET", "/api/resources/machines/"+p.Machine.ID, nil, &m) != 200 || m.VMID == 0 {
		return provisioned{}, false
	}
	return provisioned{ID: m.ID, VMID: m.VMID}, true
}

func tryLogin(client *http.Client, base, email, password string) (string, bool) {
	body := strings.NewReader(fmt.Sprintf(`{"email":%q,"password":%q}`, email, password))
	res, err := client.Post(base+"/api/auth/login", "application/json", body)
	if err != nil {
		return "", false
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return "", false
	}
	var p tokenPair
	if err := jsonDecode(res, &p); err != nil {
		return "", false
	}
	return p.RefreshToken, true
}

// TestGracefulShutdownDrains shuts the server down while requests are in flight: each is
// answered (or refused a connection), none with a 5xx, and every acknowledged write is
// there after the restart.
func TestGracefulShutdownDrains(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
		bad   []int
	)
	var answered atomic.Int64
	client := &http.Client{Timeout: 10 * time.Second}
	base := s.base
	admin := s.adminToken()
	for w := 0; w < 8; w++ {
		// An operator of its own per worker: a user holds at most auth.MaxSessions
		// logins, so one user's many would end its first, acknowledged or not.
		email := fmt.Sprintf("drain-%d@example.test", w)
		expect(t, s.do(req{method: "POST", path: "/api/resources/users", token: admin, body: map[string]any{
			"email": email, "name": "Worker", "role": "admin", "password": "worker-password"}}), 201, "")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				body := strings.NewReader(fmt.Sprintf(`{"email":%q,"password":%q}`, email, "worker-password"))
				res, err := client.Post(base+"/api/auth/login", "application/json", body)
				if err != nil {
					return // the listener is closed: refused, which is fine
				}
				var p tokenPair
				derr := jsonDecode(res, &p)
				res.Body.Close()
				mu.Lock()
				switch {
				case res.StatusCode == 200 && derr == nil:
					acked = append(acked, p.RefreshToken)
				case res.StatusCode >= 500 && res.StatusCode != 503:
					bad = append(bad, res.StatusCode)
				}
				mu.Unlock()
				answered.Add(1)
			}
		}()
	}
	// Stop once logins are answered and more are on their way, not after a guess.
	testwait.Eventually(t, "eight logins answered", func() bool { return answered.Load() >= 8 })
	s.stop()
	wg.Wait()
	if len(bad) > 0 {
		t.Fatalf("got statuses %v during shutdown; want no 5xx but 503", bad)
	}
	s.cfg.Addr = "127.0.0.1:0"
	s.start()
	for _, rt := range acked {
		expect(t, refresh(s, rt), 200, "")
	}
}
