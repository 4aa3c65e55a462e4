package persistence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// TestBackupLoadRoundTrip backs up a store (with deletes, a TTL key and values of
// several sizes) and loads it into an empty one: every live key comes back with its
// value, the deleted ones do not, and the TTL survives.
func TestBackupLoadRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := openStore(t, Options{})
	b := new(Batch)
	for i := range 500 {
		b.Put(Key(KindVM, fmt.Sprintf("%04d", i)), bytes.Repeat([]byte{byte(i)}, i*10))
	}
	b.Put(Key(KindMeta, "jwt-key"), []byte("k"))
	b.PutTTL(Key("idem", "x"), []byte("answer"), time.Hour)
	mustCommit(t, src, b)
	mustCommit(t, src, new(Batch).Del(Key(KindVM, "0007")).Put(Key(KindVM, "0008"), []byte("changed")))
	if _, err := Upgrade(ctx, src, nil, chainTo(new(int))); err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	if err := src.Backup(ctx, &buf); err != nil {
		t.Fatalf("Backup: %v", err)
	}
	h, err := VerifyBackup(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("VerifyBackup: %v", err)
	}
	if h.Schema != SchemaVersion || h.Format != backupFormat {
		t.Errorf("header %+v; want schema %d, format %d", h, SchemaVersion, backupFormat)
	}

	dst := openStore(t, Options{})
	if err := dst.Load(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatalf("Load: %v", err)
	}
	want, got := scanAll(t, src, "", "", 0), scanAll(t, dst, "", "", 0)
	if len(want) != 499+3 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("loaded %d keys, want the %d of the source (equal: %v)", len(got), len(want), fmt.Sprint(got) == fmt.Sprint(want))
	}
	if _, err := dst.Get(context.Background(), Key(KindVM, "0007")); !errors.Is(err, ErrNotFound) {
		t.Errorf("the deleted key is back: %v", err)
	}
	if v, _ := dst.Get(context.Background(), Key(KindVM, "0008")); string(v) != "changed" {
		t.Errorf("the overwritten key has %q", v)
	}
	// The loaded store takes writes on top, and an overwrite of a loaded key wins: the
	// loader moved the store's clock past the backup's versions.
	mustCommit(t, dst, new(Batch).Put(Key(KindVM, "new"), []byte("x")).Put(Key(KindVM, "0008"), []byte("later")))
	if v, _ := dst.Get(context.Background(), Key(KindVM, "0008")); string(v) != "later" {
		t.Errorf("an overwrite after the load reads %q", v)
	}

	// A second load into a store that holds records is refused, writing nothing.
	if err := dst.Load(bytes.NewReader(buf.Bytes())); !errors.Is(err, apierr.ErrConflict) {
		t.Errorf("Load into a non-empty store: %v; want conflict", err)
	}
}

// TestBackupRefusesDamage: a backup cut anywhere, or with a byte changed, fails to
// verify and to load; so does something that is no backup at all.
func TestBackupRefusesDamage(t *testing.T) {
	t.Parallel()
	src := openStore(t, Options{})
	b := new(Batch)
	for i := range 50 {
		b.Put(Key(KindTask, fmt.Sprintf("%03d", i)), []byte(fmt.Sprintf("task %d", i)))
	}
	mustCommit(t, src, b)
	var buf bytes.Buffer
	if err := src.Backup(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	flipped := bytes.Clone(full)
	flipped[len(flipped)/2] ^= 0x01
	cases := map[string][]byte{
		"empty":            nil,
		"not a backup":     []byte("hello\n"),
		"header only":      full[:bytes.IndexByte(full, '\n')+1],
		"cut in a frame":   full[:len(full)/2],
		"cut at the end":   full[:len(full)-40],
		"cut in checksum":  full[:len(full)-5],
		"a byte changed":   flipped,
		"trailing garbage": append(bytes.Clone(full), 'x'),
	}
	for name, data := range cases {
		if _, err := VerifyBackup(bytes.NewReader(data)); !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Errorf("%s: VerifyBackup = %v; want invalid_request", name, err)
		}
		dst := openStore(t, Options{})
		if err := dst.Load(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: Load succeeded", name)
		}
	}
}

// TestBackupIsOneMoment backs up while a writer moves a counter between two keys in
// single batches: every backup holds the two keys of the same batch, whatever writes
// land while it runs.
func TestBackupIsOneMoment(t *testing.T) {
	t.Parallel()
	src := openStore(t, Options{})
	pad := bytes.Repeat([]byte("p"), 2000)
	for i := range 10 { // enough records for the stream to take a while
		b := new(Batch)
		for j := range 200 {
			b.Put(Key(KindVM, fmt.Sprintf("%05d", i*200+j)), pad)
		}
		mustCommit(t, src, b)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; !stop.Load(); n++ {
			v := []byte(fmt.Sprint(n))
			mustCommit(t, src, new(Batch).Put(Key("a", "x"), v).Put(Key("z", "x"), v))
		}
	}()
	for range 3 {
		var buf bytes.Buffer
		if err := src.Backup(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		dst := openStore(t, Options{})
		if err := dst.Load(&buf); err != nil {
			t.Fatal(err)
		}
		a, errA := dst.Get(context.Background(), Key("a", "x"))
		z, errZ := dst.Get(context.Background(), Key("z", "x"))
		if !bytes.Equal(a, z) || (errA == nil) != (errZ == nil) {
			t.Errorf("the backup mixes two moments: a=%q (%v), z=%q (%v)", a, errA, z, errZ)
		}
	}
	stop.Store(true)
	wg.Wait()
}

// TestBackupStopsWithItsContext: a cancelled backup stops with the context's error.
func TestBackupStopsWithItsContext(t *testing.T) {
	t.Parallel()
	src := openStore(t, Options{})
	mustCommit(t, src, new(Batch).Put(Key(KindVM, "1"), []byte("x")))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := src.Backup(ctx, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("Backup with a cancelled context: %v", err)
	}
}

// noSnapshots is a Store that takes no backups of its own, as a replicated one.
type noSnapshots struct{ Store }

func TestSnapshotterOf(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	if _, err := SnapshotterOf(s); err != nil {
		t.Errorf("Badger: %v", err)
	}
	_, err := SnapshotterOf(noSnapshots{s})
	if !errors.Is(err, apierr.ErrInvalidState) || !bytes.Contains([]byte(err.Error()), []byte("etcdctl snapshot")) {
		t.Errorf("a store without snapshots: %v", err)
	}
}
