package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
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
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServerProcess$")
	cmd.Env = append(os.Environ(), "VMPLANE_TEST_CHILD_DIR="+dir)
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
// clients log in (each login is a durable write of a refresh-token family), restarts it
// on the same data directory, and checks that every login that was answered 200 is there.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
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
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
	)
	stop := make(chan struct{})
	client := &http.Client{Timeout: 5 * time.Second}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				rt, ok := tryLogin(client, base)
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
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 150 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // the data directory's lock goes with the process
	close(stop)
	wg.Wait()
	if len(acked) < 50 {
		t.Fatalf("got %d acknowledged logins before the kill; want at least 50", len(acked))
	}

	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}}
	s.cfg.DataDir = dir
	s.start()
	t.Cleanup(s.stop)
	for _, rt := range acked {
		expect(t, refresh(s, rt), 200, "")
	}
}

func tryLogin(client *http.Client, base string) (string, bool) {
	body := strings.NewReader(fmt.Sprintf(`{"email":%q,"password":%q}`, testAdminEmail, testAdminPassword))
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
	s := startServer(t)
	var (
		mu    sync.Mutex
		acked []string
		wg    sync.WaitGroup
		bad   []int
	)
	client := &http.Client{Timeout: 10 * time.Second}
	base := s.base
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				body := strings.NewReader(fmt.Sprintf(`{"email":%q,"password":%q}`, testAdminEmail, testAdminPassword))
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
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
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
