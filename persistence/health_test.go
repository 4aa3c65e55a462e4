package persistence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestFailedSyncRecoversByReopening: a failed sync stops writes (503, health says
// why, the batch is not acknowledged) while reads go on; once the disk takes writes
// again the store reopens by itself and accepts writes, with every acknowledged write
// still there.
func TestFailedSyncRecoversByReopening(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	var failSync, failProbe atomic.Bool
	s := openStore(t, Options{Logger: zap.New(core), RecoverEvery: 10 * time.Millisecond,
		syncHook: func() error {
			if failSync.Load() {
				return syscall.EIO
			}
			return nil
		},
		probeHook: func() error {
			if failProbe.Load() {
				return syscall.EIO
			}
			return nil
		}})
	var heardK2 atomic.Int32
	s.Watch([]byte("k/2"), func([]byte) { heardK2.Add(1) })
	mustCommit(t, s, new(Batch).Put([]byte("k/1"), []byte("v1")))
	failSync.Store(true)
	failProbe.Store(true)
	err := s.Commit(context.Background(), new(Batch).Put([]byte("k/2"), []byte("v2")).Put([]byte("k/3"), []byte("v3")))
	if !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit with a failing sync: %v; want 503 unavailable", err)
	}
	if h := s.Health(); !errors.Is(h, apierr.ErrUnavailable) {
		t.Fatalf("Health after a failed sync: %v; want unavailable", h)
	}
	failSync.Store(false) // the sync would work now, but the store does not trust it yet
	if err := s.Commit(context.Background(), new(Batch).Put([]byte("k/4"), []byte("v4"))); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit before recovery: %v; want 503 unavailable", err)
	}
	if v, err := s.Get(context.Background(), []byte("k/1")); err != nil || string(v) != "v1" {
		t.Fatalf("Get while writes are refused: %q, %v; want v1", v, err)
	}
	failProbe.Store(false) // the disk works again
	testwait.Eventually(t, "recovery", func() bool { return s.Health() == nil })
	// Caches that saw the failed batch's values hear of its keys again.
	if n := heardK2.Load(); n != 2 {
		t.Fatalf("the watcher heard of k/2 %d times; want at the failed commit and after the reopen", n)
	}
	mustCommit(t, s, new(Batch).Put([]byte("k/5"), []byte("v5")))
	for _, k := range []string{"k/1", "k/5"} {
		if _, err := s.Get(context.Background(), []byte(k)); err != nil {
			t.Fatalf("Get(%s) after recovery: %v", k, err)
		}
	}
	// The batch whose sync failed is there whole or not at all.
	_, e2 := s.Get(context.Background(), []byte("k/2"))
	_, e3 := s.Get(context.Background(), []byte("k/3"))
	if (e2 == nil) != (e3 == nil) {
		t.Fatalf("half a batch after recovery: k/2 %v, k/3 %v", e2, e3)
	}
	if n := logs.FilterMessage("persistence: a write or sync failed; refusing writes until the store is reopened").Len(); n != 1 {
		t.Fatalf("the failure was logged %d times; want once", n)
	}
	if logs.FilterMessage("persistence: writes accepted again").Len() != 1 {
		t.Fatalf("want one line saying writes are accepted again; got %v", logs.All())
	}
}

// TestLowDiskSpaceRefusesWrites: below the free-space reserve writes fail with 507
// and nothing of them is written, health says so, reads go on, and writes resume by
// themselves when there is room; the state change is logged once, not per write.
func TestLowDiskSpaceRefusesWrites(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	var free atomic.Uint64
	free.Store(1 << 30)
	s := openStore(t, Options{Logger: zap.New(core), MinFreeBytes: 64 << 20,
		FreeSpace: func() (uint64, error) { return free.Load(), nil }})
	mustCommit(t, s, new(Batch).Put([]byte("k/1"), []byte("v1")))
	free.Store(10 << 20)
	for i := 0; i < 5; i++ {
		err := s.Commit(context.Background(), new(Batch).Put([]byte("k/2"), []byte("v2")))
		if !errors.Is(err, apierr.ErrInsufficientStorage) {
			t.Fatalf("Commit on a full disk: %v; want 507 insufficient_storage", err)
		}
	}
	if h := s.Health(); !errors.Is(h, apierr.ErrInsufficientStorage) || !bytes.Contains([]byte(h.Error()), []byte("10 MiB free")) {
		t.Fatalf("Health on a full disk: %v; want insufficient_storage naming the free space", h)
	}
	if _, err := s.Get(context.Background(), []byte("k/2")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused write is visible: %v", err)
	}
	if v, err := s.Get(context.Background(), []byte("k/1")); err != nil || string(v) != "v1" {
		t.Fatalf("Get on a full disk: %q, %v; want v1", v, err)
	}
	free.Store(1 << 30)
	mustCommit(t, s, new(Batch).Put([]byte("k/2"), []byte("v2")))
	if h := s.Health(); h != nil {
		t.Fatalf("Health with room again: %v", h)
	}
	if n := logs.FilterMessage("persistence: refusing writes").Len(); n != 1 {
		t.Fatalf("the full disk was logged %d times; want once", n)
	}
	if n := logs.FilterMessage("persistence: writes accepted again").Len(); n != 1 {
		t.Fatalf("the recovery was logged %d times; want once", n)
	}
}

// TestDataDirRemoved: a data directory deleted under the running store turns health
// and writes to 503 for good (reopening would start an empty store).
func TestDataDirRemoved(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(Options{Dir: dir, RecoverEvery: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, new(Batch).Put([]byte("k/1"), []byte("v1")))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if h := s.Health(); !errors.Is(h, apierr.ErrUnavailable) || !bytes.Contains([]byte(h.Error()), []byte("removed")) {
		t.Fatalf("Health without the data directory: %v; want unavailable saying it was removed", h)
	}
	if err := s.Commit(context.Background(), new(Batch).Put([]byte("k/2"), []byte("v2"))); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit without the data directory: %v; want 503", err)
	}
	// Badger's own Close would retry flushing into the missing directory forever.
	if err := s.Close(); err == nil {
		t.Fatal("Close without the data directory reported success")
	}
	// The close given up on goes on in the background; with a directory to flush into
	// again it ends, and its goroutines do not outlive the test.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.pendingClose:
	case <-time.After(time.Minute):
		t.Fatal("the close given up on did not end once the directory was back")
	}
}

// TestManifestRewriteIsNotAReplacedDir: Badger rewrites its MANIFEST after enough
// deletions (a new file renamed over the old, so a new inode); writes must go on, while
// a directory replaced by another is still told apart.
func TestManifestRewriteIsNotAReplacedDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustCommit(t, s, new(Batch).Put([]byte("k/1"), []byte("v1")))
	manifest := filepath.Join(dir, badger.ManifestFilename)
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	rewrite := filepath.Join(dir, "MANIFEST-REWRITE")
	if err := os.WriteFile(rewrite, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(rewrite, manifest); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background(), new(Batch).Put([]byte("k/2"), []byte("v2"))); err != nil {
		t.Fatalf("a write after the MANIFEST was rewritten: %v; want it accepted", err)
	}
	if h := s.Health(); h != nil {
		t.Fatalf("Health after the MANIFEST was rewritten: %v; want healthy", h)
	}
}

// TestRealDiskFull fills a small tmpfs with writes: the store refuses them with 507
// before Badger's mmap'd files can hit ENOSPC (which kills the process with SIGBUS),
// and accepts writes again once room is made. It needs to mount a tmpfs (root), and is
// skipped where that is not permitted. It runs in a child process, so that a SIGBUS
// fails the test instead of the whole test binary.
func TestRealDiskFull(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("mounts a tmpfs")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=80m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDiskFull$", "-test.v")
	cmd.Env = append(os.Environ(), "VMPLANE_DISKFULL_DIR="+mnt)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the writer on a full disk failed: %v\n%s", err, out)
	}
}

// TestHelperDiskFull is the child of TestRealDiskFull.
func TestHelperDiskFull(t *testing.T) {
	mnt := os.Getenv("VMPLANE_DISKFULL_DIR")
	if mnt == "" {
		t.Skip("runs only as the child of TestRealDiskFull")
	}
	s, err := Open(Options{Dir: filepath.Join(mnt, "data"), MemTableSize: MinMemTableSize})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Another tenant of the disk takes most of it.
	filler := filepath.Join(mnt, "filler")
	if err := os.WriteFile(filler, make([]byte, 24<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	val := bytes.Repeat([]byte("x"), 64<<10)
	var refused error
	acked := 0
	for i := 0; i < 4000 && refused == nil; i++ {
		if err := s.Commit(context.Background(), new(Batch).Put([]byte(fmt.Sprintf("k/%05d", i)), val)); err != nil {
			refused = err
			break
		}
		acked++
	}
	if !errors.Is(refused, apierr.ErrInsufficientStorage) {
		t.Fatalf("after %d writes: %v; want 507 insufficient_storage", acked, refused)
	}
	if acked == 0 {
		t.Fatal("no write went through before the disk was full")
	}
	if v, err := s.Get(context.Background(), []byte("k/00000")); err != nil || len(v) != len(val) {
		t.Fatalf("Get on a full disk: %v", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(context.Background(), new(Batch).Put([]byte("after"), val)); err != nil {
		t.Fatalf("Commit after room was made: %v", err)
	}
}

// TestBadgerRepeatsThrottled: Badger's retry-every-second lines are logged once per
// badgerRepeatEvery, not once per try.
func TestBadgerRepeatsThrottled(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.InfoLevel)
	l := badgerLogger{s: zap.New(core).Sugar(), t: &repeats{}}
	for i := 0; i < 5; i++ {
		l.Errorf("error flushing memtable to disk: %v, retrying", syscall.ENOSPC)
	}
	l.Warningf("another line")
	if n := logs.Len(); n != 2 {
		t.Fatalf("got %d lines; want the repeated error once and the other line", n)
	}
}
