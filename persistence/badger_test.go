package persistence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/testwait"
)

// openStore opens a store in a fresh directory and closes it when the test ends.
func openStore(t testing.TB, opts Options) *Badger {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	s, err := Open(opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", opts.Dir, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func mustCommit(t testing.TB, s Store, b *Batch) {
	t.Helper()
	if err := s.Commit(context.Background(), b); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

type kv struct{ k, v string }

// scanAll collects a Scan's results.
func scanAll(t *testing.T, s Store, prefix, after string, limit int) []kv {
	t.Helper()
	var got []kv
	var afterKey []byte
	if after != "" {
		afterKey = []byte(after)
	}
	err := s.Scan(context.Background(), []byte(prefix), afterKey, limit, func(k, v []byte) error {
		got = append(got, kv{string(k), string(v)})
		return nil
	})
	if err != nil {
		t.Fatalf("Scan(%q, %q, %d): %v", prefix, after, limit, err)
	}
	return got
}

func TestGetCommitDelete(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})

	if _, err := s.Get(context.Background(), []byte("vm/1")); !errors.Is(err, ErrNotFound) || !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("Get of a missing key: got %v; want ErrNotFound", err)
	}

	mustCommit(t, s, new(Batch).Put([]byte("vm/1"), []byte("one")).Put([]byte("vm/2"), []byte("two")))
	get := func(key, want string) {
		t.Helper()
		got, err := s.Get(context.Background(), []byte(key))
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		if string(got) != want {
			t.Fatalf("Get(%q) = %q; want %q", key, got, want)
		}
	}
	get("vm/1", "one")
	get("vm/2", "two")

	// Overwrite one key and delete the other in one batch; the later op on a key wins.
	mustCommit(t, s, new(Batch).
		Put([]byte("vm/1"), []byte("uno")).
		Del([]byte("vm/2")).
		Put([]byte("vm/3"), []byte("x")).
		Put([]byte("vm/3"), []byte("three")))
	get("vm/1", "uno")
	get("vm/3", "three")
	if _, err := s.Get(context.Background(), []byte("vm/2")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a deleted key: got %v; want ErrNotFound", err)
	}
	if _, err := s.Get(context.Background(), nil); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(nil): got %v; want ErrNotFound", err)
	}

	// Get returns a copy the caller may keep and modify.
	v, _ := s.Get(context.Background(), []byte("vm/1"))
	v[0] = 'X'
	get("vm/1", "uno")

	// Empty and nil batches are no-ops.
	if err := s.Commit(context.Background(), nil); err != nil {
		t.Fatalf("Commit(nil): got %v; want nil", err)
	}
	if err := s.Commit(context.Background(), &Batch{}); err != nil {
		t.Fatalf("Commit(empty): got %v; want nil", err)
	}
}

func TestScan(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	b := new(Batch)
	for _, k := range []string{"vm/01", "vm/02", "vm/03", "vm/04", "vm/05", "vmx/01", "vm", "user/1", "user-email/a@b", "tenant/1"} {
		b.Put([]byte(k), []byte("v:"+k))
	}
	mustCommit(t, s, b)
	mustCommit(t, s, new(Batch).Del([]byte("vm/04")))

	keys := func(kvs []kv) string {
		var ks []string
		for _, e := range kvs {
			if e.v != "v:"+e.k {
				t.Errorf("value of %q = %q; want %q", e.k, e.v, "v:"+e.k)
			}
			ks = append(ks, e.k)
		}
		return strings.Join(ks, ",")
	}
	tests := []struct {
		prefix, after string
		limit         int
		want          string
	}{
		{"vm/", "", 0, "vm/01,vm/02,vm/03,vm/05"},
		{"vm/", "", 2, "vm/01,vm/02"},
		{"vm/", "vm/02", 0, "vm/03,vm/05"},
		{"vm/", "vm/02", 1, "vm/03"},
		{"vm/", "vm/025", 0, "vm/03,vm/05"}, // cursor between keys
		{"vm/", "vm/04", 0, "vm/05"},        // cursor on a deleted key
		{"vm/", "vm/05", 0, ""},
		{"vm/", "a", 0, "vm/01,vm/02,vm/03,vm/05"}, // cursor before the prefix
		{"vm/", "zzz", 0, ""},                      // cursor after the prefix
		{string(Prefix("user")), "", 0, "user/1"},  // not user-email/
		{string(Prefix("user-email")), "", 0, "user-email/a@b"},
		{string(Prefix("vmx")), "", 0, "vmx/01"},
		{"nothing/", "", 0, ""},
		{"", "user/1", 2, "vm,vm/01"}, // empty prefix: all keys
	}
	for _, tt := range tests {
		got := keys(scanAll(t, s, tt.prefix, tt.after, tt.limit))
		if got != tt.want {
			t.Errorf("Scan(%q, after %q, limit %d) = %q; want %q", tt.prefix, tt.after, tt.limit, got, tt.want)
		}
	}

	// The callback's error stops the scan and comes back as it is.
	stop := errors.New("stop")
	n := 0
	err := s.Scan(context.Background(), []byte("vm/"), nil, 0, func(k, v []byte) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || n != 2 {
		t.Fatalf("Scan with a failing callback: got %v after %d keys; want %v after 2", err, n, stop)
	}

	// A callback may read the store.
	err = s.Scan(context.Background(), []byte("vm/"), nil, 1, func(k, v []byte) error {
		got, err := s.Get(context.Background(), k)
		if err != nil || !bytes.Equal(got, v) {
			return fmt.Errorf("Get(%q) = %q, %v; want %q", k, got, err, v)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Scan with a reading callback: %v", err)
	}
}

func TestSecondOpenFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := openStore(t, Options{Dir: dir})
	mustCommit(t, s, new(Batch).Put([]byte("meta/x"), []byte("1")))

	s2, err := Open(Options{Dir: dir})
	if err == nil {
		s2.Close()
		t.Fatal("second Open of a directory in use: got nil error; want one")
	}
	if !errors.Is(err, apierr.ErrUnavailable) {
		t.Errorf("second Open: got %v; want an apierr.ErrUnavailable error", err)
	}
	if !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), dir) {
		t.Errorf("second Open: got %q; want it to say %s is in use", err, dir)
	}
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Detail != fmt.Sprintf("data directory %s is in use by vmplane process %d", dir, os.Getpid()) {
		t.Errorf("second Open detail = %q; want it to name this process", ae.Detail)
	}
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() || inUse.Dir != dir {
		t.Errorf("second Open: got %#v; want an *InUseError naming pid %d", err, os.Getpid())
	}
	if strings.Contains(err.Error(), "Badger") || strings.Contains(err.Error(), "Cannot acquire") {
		t.Errorf("second Open: got %q; want no Badger error", err)
	}

	// The first store is unharmed.
	mustCommit(t, s, new(Batch).Put([]byte("meta/y"), []byte("2")))
	for k, want := range map[string]string{"meta/x": "1", "meta/y": "2"} {
		if got, err := s.Get(context.Background(), []byte(k)); err != nil || string(got) != want {
			t.Fatalf("Get(%q) after the failed Open = %q, %v; want %q", k, got, err, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// Once closed, the directory opens again with its data.
	s3 := openStore(t, Options{Dir: dir})
	if got, err := s3.Get(context.Background(), []byte("meta/y")); err != nil || string(got) != "2" {
		t.Fatalf("Get after reopen = %q, %v; want %q", got, err, "2")
	}
}

func TestClosedStore(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name string
		opts Options
	}{{"group-commit", Options{}}, {"per-write-sync", Options{NoGroupCommit: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			dir := t.TempDir()
			mode.opts.Dir = dir
			s := openStore(t, mode.opts)
			mustCommit(t, s, new(Batch).Put([]byte("k"), []byte("v")))
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Fatalf("second Close: got %v; want nil", err)
			}
			unavailable := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, apierr.ErrUnavailable) {
					t.Errorf("%s after Close: got %v; want an apierr.ErrUnavailable error", what, err)
				}
			}
			unavailable("Commit", s.Commit(context.Background(), new(Batch).Put([]byte("k2"), []byte("v"))))
			_, err := s.Get(context.Background(), []byte("k"))
			unavailable("Get", err)
			unavailable("Scan", s.Scan(context.Background(), nil, nil, 0, func(k, v []byte) error { return nil }))
			if st := s.Stats(); st.Commits != 1 {
				t.Errorf("Stats().Commits after Close = %d; want 1", st.Commits)
			}
		})
	}
}

func TestCommitContext(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Commit(ctx, new(Batch).Put([]byte("k"), []byte("v")))
	if !errors.Is(err, context.Canceled) || !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Commit with a cancelled context: got %v; want context.Canceled of kind unavailable", err)
	}
	ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	err = s.Commit(ctx, new(Batch).Put([]byte("k"), []byte("v")))
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, apierr.ErrTimeout) {
		t.Fatalf("Commit past its deadline: got %v; want context.DeadlineExceeded of kind timeout", err)
	}
	if _, err := s.Get(context.Background(), []byte("k")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after cancelled commits: got %v; want ErrNotFound", err)
	}
}

// TestConcurrentReadsAndClose runs reads and writes against Close: none may crash, and
// every call either works or fails with ErrUnavailable.
func TestConcurrentReadsAndClose(t *testing.T) {
	t.Parallel()
	s, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	mustCommit(t, s, new(Batch).Put([]byte("vm/1"), []byte("v")))
	var wg sync.WaitGroup
	var answered atomic.Int64 // callers that had a call answered: they are in flight
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				if i == 1 {
					answered.Add(1)
				}
				var err error
				switch i % 3 {
				case 0:
					_, err = s.Get(context.Background(), []byte("vm/1"))
				case 1:
					err = s.Scan(context.Background(), []byte("vm/"), nil, 0, func(k, v []byte) error { return nil })
				default:
					err = s.Commit(context.Background(), new(Batch).Put(Key("vm", fmt.Sprint(g, i)), []byte("v")))
				}
				if errors.Is(err, apierr.ErrUnavailable) {
					return
				}
				if err != nil {
					t.Errorf("call %d: %v", i, err)
					return
				}
			}
		})
	}
	testwait.Eventually(t, "every caller in flight", func() bool { return answered.Load() == 8 })
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	wg.Wait()
}

func TestStats(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	for i := range 3 {
		mustCommit(t, s, new(Batch).Put(Key("vm", fmt.Sprint(i)), []byte("v")))
	}
	st := s.Stats()
	if st.Commits != 3 || st.Groups != 3 || st.CommitErrors != 0 || st.PendingWrites != 0 {
		t.Fatalf("Stats after 3 sequential commits = %+v; want 3 commits, 3 groups, no errors, none pending", st)
	}
	if st.LSMBytes < 0 || st.VLogBytes < 0 {
		t.Fatalf("Stats sizes = %d, %d; want >= 0", st.LSMBytes, st.VLogBytes)
	}
}

// TestOpenOptions opens with tiny sizes (raised to the minimum Badger accepts) and a
// debug logger, and checks that Badger's log lines reach zap under the "badger" name.
func TestOpenOptions(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zap.DebugLevel)
	s := openStore(t, Options{
		Logger:         zap.New(core),
		MemTableSize:   1 << 20,
		BlockCacheSize: 1 << 20,
		IndexCacheSize: 1 << 20,
		MaxBatch:       2,
	})
	mustCommit(t, s, new(Batch).Put([]byte("k"), bytes.Repeat([]byte("v"), MaxValueSize)))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	badgerLines := logs.FilterLoggerName("badger").All()
	if len(badgerLines) == 0 {
		t.Fatalf("no log lines from Badger; want its info lines at debug level")
	}
	for _, e := range badgerLines {
		if e.Level == zap.InfoLevel {
			t.Errorf("Badger line at info level: %q; want info lines at debug", e.Message)
		}
		if strings.HasSuffix(e.Message, "\n") {
			t.Errorf("Badger line %q ends with a newline", e.Message)
		}
	}
}

func TestPutTTLExpires(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	// Badger keeps expiry times in whole seconds (the put's second plus the TTL, rounded
	// down), so a TTL of 1 s could end a moment after the put: 5 s leaves at least 4 for
	// the read right after it, on a loaded machine too. The test runs in parallel, so
	// the wait costs the package little.
	b := new(Batch).PutTTL([]byte("k/short"), []byte("v"), 5*time.Second).Put([]byte("k/long"), []byte("v"))
	if err := s.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(context.Background(), []byte("k/short")); err != nil {
		t.Fatalf("got %v right after the put; want the key", err)
	}
	testwait.Until(t, func() error {
		if _, err := s.Get(context.Background(), []byte("k/short")); !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("got %v after its TTL; want not found", err)
		}
		return nil
	})
	n := 0
	if err := s.Scan(context.Background(), []byte("k/"), nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("got %d keys, %v; want only the one without TTL", n, err)
	}
}
