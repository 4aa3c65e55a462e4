package auth

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// hashIn runs one compare through the hasher's worker and returns where it ran.
func hashIn(t *testing.T, h *passwordHasher, hash []byte, password string) (bool, int) {
	t.Helper()
	r, err := h.do(context.Background(), &hashJob{hash: hash, password: []byte(password)})
	if err != nil {
		t.Fatal(err)
	}
	return r.err == nil, r.pid
}

// childHasher is a hasher of one worker hashing in a child process that waits for the
// child as long as a loaded test machine may starve it (the child runs at the lowest
// priority): a test that wants the hash computed there must not see it fall back here.
func childHasher() *passwordHasher {
	h := startPasswordHasher(1, nil, nil, hashWorkerCommand())
	h.patience = time.Minute
	return h
}

func TestHashingInAChildProcess(t *testing.T) {
	h := childHasher()
	defer h.close()
	ctx := context.Background()
	hash := generated(t, h)
	ok, pid := hashIn(t, h, hash, "correct horse")
	if !ok || pid == 0 || pid == os.Getpid() {
		t.Fatalf("got match %v in process %d; want a match computed in a child (this is %d)", ok, pid, os.Getpid())
	}
	if ok, _ := hashIn(t, h, hash, "battery staple"); ok {
		t.Fatal("a wrong password matched")
	}
	if _, err := h.generate(ctx, strings.Repeat("x", 73), bcrypt.MinCost); !errors.Is(err, bcrypt.ErrPasswordTooLong) {
		t.Fatalf("got %v; want bcrypt.ErrPasswordTooLong through the child", err)
	}

	// The child dies: the job that finds out is hashed here, the next in a new child.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var pids []int
	local := 0
	for range 3 {
		ok, p := hashIn(t, h, hash, "correct horse")
		if !ok {
			t.Fatal("a right password did not match after the child died")
		}
		pids = append(pids, p)
		if p == 0 {
			local++
		}
	}
	// For hashLocalFor after a child failed, the hashes are computed here.
	if local != len(pids) {
		t.Fatalf("hashed in processes %v after %d died; want here (0) while it cools down", pids, pid)
	}
}

func TestHashingProcessRestartsAfterCoolDown(t *testing.T) {
	h := childHasher()
	h.localFor = 0
	defer h.close()
	hash := testHash(t)
	_, first := hashIn(t, h, hash, "correct horse")
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// A loaded machine may starve a new child past hashPatience, and that job falls
	// back to this process: a few tries, until one is hashed in a new child.
	var pids []int
	for range 20 {
		ok, p := hashIn(t, h, hash, "correct horse")
		if !ok {
			t.Fatal("a right password did not match after the child died")
		}
		pids = append(pids, p)
		if p != 0 && p != first {
			return
		}
	}
	t.Fatalf("hashed in processes %v after %d died; want a new child", pids, first)
}

func TestHashingWithoutAChildFallsBack(t *testing.T) {
	h := startPasswordHasher(1, nil, nil, []string{"/nonexistent/vmplane", "hash-worker"})
	defer h.close()
	if ok, pid := hashIn(t, h, testHash(t), "correct horse"); !ok || pid != 0 {
		t.Fatalf("got match %v in process %d; want a match computed here", ok, pid)
	}
}

// TestStarvedHashingProcessFallsBack: a hashing process that does not answer (here one
// that never reads; in production one starved of CPU) is killed after hashPatience,
// and the hash is computed in this process.
func TestStarvedHashingProcessFallsBack(t *testing.T) {
	h := startPasswordHasher(1, nil, nil, []string{"/bin/sleep", "60"})
	defer h.close()
	if ok, pid := hashIn(t, h, testHash(t), "correct horse"); !ok || pid != 0 {
		t.Fatalf("got match %v in process %d; want a match computed here", ok, pid)
	}
	out, err := exec.Command("pgrep", "-f", "^/bin/sleep 60$").Output()
	if len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("the silent process is still running (pgrep: %q, %v)", out, err)
	}
}

// TestHashingProcessAnswerNeverGrantsByDefault: a child that answers without saying
// "match" (a different or broken program) never lets a password in; its answer is
// refused and the hash computed here.
func TestHashingProcessAnswerNeverGrantsByDefault(t *testing.T) {
	// A "child" that answers every line with an empty object.
	h := startPasswordHasher(1, nil, nil, []string{"/bin/sh", "-c", `while read -r line; do echo '{"pid":1}'; done`})
	defer h.close()
	hash := testHash(t)
	if ok, pid := hashIn(t, h, hash, "battery staple"); ok || pid != 0 {
		t.Fatalf("got match %v from process %d; want a wrong password refused, computed here", ok, pid)
	}
	if ok, _ := hashIn(t, h, hash, "correct horse"); !ok {
		t.Fatal("a right password did not match")
	}
}
