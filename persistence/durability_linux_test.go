//go:build linux

package persistence

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childDirEnv tells the test binary, re-executed by TestDurabilityAfterKill, to run
// the writing child in that directory.
const childDirEnv = "VMPLANE_PERSISTENCE_CHILD_DIR"

// TestDurabilityAfterKill re-executes the test binary as a child that commits from many
// goroutines and prints each key as soon as its Commit returns; the parent kills it
// with SIGKILL mid-stream, reopens the directory and checks that every acknowledged
// key is there, and that no batch was applied in part.
//
// SIGKILL loses what the process had not handed to the kernel; a power cut also loses
// what the kernel had not written. This test covers the first, the sync reasoning in
// groupcommit.go the second.
func TestDurabilityAfterKill(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessWriter$")
	cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // if we die first
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	const killAfter = 2000
	acked := map[string]string{}
	killed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || f[0] != "ack" {
			continue // the test framework's own output
		}
		acked[f[1]] = f[2]
		if len(acked) == killAfter && !killed {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatalf("kill child: %v", err)
			}
			killed = true
		}
		// Keep reading: lines the child wrote before it died count as acknowledged.
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child ended after %d acks without being killed: %v\n%s", len(acked), err, stderr.String())
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child: got %v; want death by SIGKILL\n%s", err, stderr.String())
	}

	s := openStore(t, Options{Dir: dir})
	for k, v := range acked {
		for _, kind := range []string{"a", "b"} {
			got, err := s.Get(context.Background(), Key(kind, k))
			if err != nil || string(got) != v {
				t.Fatalf("acknowledged %s/%s after SIGKILL = %q, %v; want %q", kind, k, got, err, v)
			}
		}
	}
	// Atomicity: each batch wrote a/<k> and b/<k>; after the crash both or neither exist.
	a, b := scanAll(t, s, "a/", "", 0), scanAll(t, s, "b/", "", 0)
	if len(a) != len(b) {
		t.Fatalf("after SIGKILL: %d a/ keys and %d b/ keys; want equal (batches are atomic)", len(a), len(b))
	}
	for i := range a {
		if a[i].k[2:] != b[i].k[2:] || a[i].v != b[i].v {
			t.Fatalf("after SIGKILL: %v and %v; want the two halves of one batch", a[i], b[i])
		}
	}
	t.Logf("child acknowledged %d commits before dying; %d present after reopen", len(acked), len(a))
}

// TestHelperProcessWriter is the child of TestDurabilityAfterKill; run alone, it skips.
func TestHelperProcessWriter(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("helper process for TestDurabilityAfterKill")
	}
	// The parent kills us; never outlive a parent that forgot to.
	time.AfterFunc(60*time.Second, func() { os.Exit(3) })

	s, err := Open(Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := 0; ; i++ {
				k := fmt.Sprintf("%02d-%07d", g, i)
				v := fmt.Sprintf("v%d.%d", g, i)
				b := new(Batch).Put(Key("a", k), []byte(v)).Put(Key("b", k), []byte(v))
				if err := s.Commit(context.Background(), b); err != nil {
					fmt.Fprintln(os.Stderr, "commit:", err)
					os.Exit(2)
				}
				line := "ack " + k + " " + v + "\n"
				mu.Lock()
				_, err := os.Stdout.WriteString(line) // one write(2): the line is whole or absent
				mu.Unlock()
				if err != nil {
					os.Exit(2)
				}
			}
		})
	}
	wg.Wait()
}
