package persistence

// Storage faults: what the store does when its disk fails or fills up.
//
// Three conditions stop writes, each with a clear answer and a way back:
//
//   - Low disk space. Badger writes its write-ahead log and its tables through mmap'd
//     files that it creates sparse: when the filesystem is full, a write into such a
//     page does not fail, it raises SIGBUS and kills the process (seen with Badger
//     v4.9.6 on a full tmpfs). So the writer checks the free space before each group and
//     refuses writes (507 insufficient_storage) while less than Options.MinFreeBytes is
//     free, leaving Badger room to finish its log, flush and compact. Writes resume by
//     themselves once there is room again.
//   - A failed write or sync (EIO, EROFS, ENOSPC). Which pages reached the disk is
//     unknown and retrying fsync can report success for lost data, so writes stop
//     (503 unavailable, 507 for ENOSPC). The writer then tries, at a slow interval,
//     to recover: when a probe file can be written and synced in the data directory and
//     there is room, it closes Badger and opens it again, which replays the log from
//     what is really on disk. Reads keep working meanwhile (they pause only for the
//     reopen itself).
//   - The data directory was removed or replaced. What is written now would be lost at
//     the next start, and reopening would start an empty store: writes stop for good
//     (503) until an operator restores the directory and restarts vmplane.
//
// Each change of state is logged once (an error when writes stop, info when they
// resume), and a state that lasts is logged again only every stateLogEvery.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

const (
	// DefaultRecoverEvery is how often a store whose writes failed tries to reopen.
	DefaultRecoverEvery = 10 * time.Second
	// stateLogEvery is how often a lasting storage fault is logged again.
	stateLogEvery = 10 * time.Minute
	// reopenPause bounds how long a reopen waits for the calls in the store to end
	// (they wait for it meanwhile); past it, the attempt is given up until the next.
	reopenPause = time.Second
	probeName   = ".vmplane-write-probe"
)

// DefaultMinFree is the free space kept for Badger when Options.MinFreeBytes is zero:
// the rest of a write-ahead log (two memtables), a flushed table and room to compact.
func DefaultMinFree(memTableSize int64) int64 {
	return 4*max(memTableSize, MinMemTableSize) + 16<<20
}

// Health reports whether the store accepts writes: nil, or the error writes fail with
// (apierr.ErrUnavailable or apierr.ErrInsufficientStorage) whose detail says why.
func (s *Badger) Health() error {
	if !s.gate.enter() {
		return errClosed()
	}
	s.gate.leave()
	err := s.writable()
	s.observe(err)
	return err
}

// writable is nil when a write may go ahead now.
func (s *Badger) writable() error {
	if e := s.failed.Load(); e != nil {
		return e
	}
	return s.checkDisk()
}

// checkDisk checks that the data directory is still the one opened and that its
// filesystem has room.
func (s *Badger) checkDisk() error {
	if err := s.checkDir(); err != nil {
		return err
	}
	if s.minFree <= 0 {
		return nil
	}
	free, err := s.freeSpace()
	if err != nil {
		return nil // unknown: do not refuse writes on a guess
	}
	if int64(free) < s.minFree {
		return apierr.New(apierr.ErrInsufficientStorage,
			"the data directory's disk is full: %d MiB free, writes resume above %d MiB", free>>20, s.minFree>>20)
	}
	return nil
}

// checkDir detects a data directory that was removed or replaced since Open.
func (s *Badger) checkDir() error {
	if s.gone.Load() {
		return errDirGone
	}
	if !s.dirKnown {
		return nil
	}
	id, err := dirID(s.dir)
	if err == nil && id == s.dirID {
		// The same directory; its MANIFEST must still be there (Badger replaces the
		// file by a rename when it rewrites it, so its identity changes, its presence
		// does not).
		_, err = os.Stat(filepath.Join(s.dir, badger.ManifestFilename))
		if err == nil {
			return nil
		}
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil // cannot tell (EIO, EACCES): the write itself will tell
	}
	s.gone.Store(true)
	return errDirGone
}

var errDirGone = apierr.New(apierr.ErrUnavailable,
	"the data directory was removed or replaced while vmplane ran; writes are refused until it is restored and vmplane restarts")

// fileID identifies a directory across renames: device and inode.
type fileID struct{ dev, ino uint64 }

// dirID is the data directory's own identity, not its MANIFEST's: Badger rewrites the
// MANIFEST (a new file renamed over the old) after enough deletions, which must not
// look like a replaced directory.
func dirID(dir string) (fileID, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return fileID{}, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, nil
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil //nolint:unconvert // Dev's type differs per platform
}

func (s *Badger) freeSpace() (uint64, error) {
	if s.freeHook != nil {
		return s.freeHook()
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(s.dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil //nolint:gosec,unconvert // Bsize is positive
}

// failWrites records a failed write or sync: writes stop until a reopen succeeds.
func (s *Badger) failWrites(cause error) error {
	kind, what := apierr.ErrUnavailable, "a storage write failed"
	if isNoSpace(cause) {
		kind, what = apierr.ErrInsufficientStorage, "a storage write failed: no space left on the data directory's disk"
	}
	e := apierr.New(kind, "%s; writes are refused until the store is reopened (retried every %s)", what, s.recoverEvery)
	if s.failed.CompareAndSwap(nil, e) {
		s.log.Error("persistence: a write or sync failed; refusing writes until the store is reopened",
			zap.String("dir", s.dir), zap.Error(cause))
		s.noteState(e.Detail, true)
	}
	return fmt.Errorf("%w: %w", s.failed.Load(), cause)
}

// isNoSpace recognises ENOSPC, also when Badger flattened it into text.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(err.Error(), "no space left on device")
}

// observe logs a change of the store's write state (see noteState).
func (s *Badger) observe(err error) {
	if err == nil {
		s.noteState("", false)
		return
	}
	var e *apierr.Error
	if errors.As(err, &e) {
		s.noteState(e.Detail, false)
	}
}

// noteState logs the write state when it changes, and a lasting fault again every
// stateLogEvery; logged reports that the caller logged the change already.
func (s *Badger) noteState(reason string, logged bool) {
	s.stateMu.Lock()
	defer s.stateMu.Unlock()
	now := time.Now()
	switch {
	case reason == s.state:
		if reason != "" && now.Sub(s.stateLogged) >= stateLogEvery {
			s.log.Error("persistence: writes are still refused", zap.String("reason", reason),
				zap.Duration("for", now.Sub(s.stateSince).Round(time.Second)))
			s.stateLogged = now
		}
		return
	case reason == "":
		s.log.Info("persistence: writes accepted again", zap.String("after", s.state),
			zap.Duration("refused_for", now.Sub(s.stateSince).Round(time.Second)))
	case !logged:
		s.log.Error("persistence: refusing writes", zap.String("reason", reason), zap.String("dir", s.dir))
	}
	s.state, s.stateSince, s.stateLogged = reason, now, now
}

// stateLog is the write state last logged, and the keys of failed transactions.
type stateLog struct {
	suspectMu sync.Mutex
	suspect   [][]byte

	stateMu     sync.Mutex
	state       string // "" when writes are accepted
	stateSince  time.Time
	stateLogged time.Time
}

// maybeRecover runs on the writer goroutine between groups: when writes failed and
// the last attempt is recoverEvery ago, it tries to reopen the store.
func (s *Badger) maybeRecover() {
	if s.failed.Load() == nil || s.gone.Load() || time.Since(s.lastRecover) < s.recoverEvery {
		return
	}
	s.lastRecover = time.Now()
	if err := s.checkDisk(); err != nil {
		return
	}
	if err := s.probe(); err != nil {
		s.log.Debug("persistence: the data directory still fails a write probe", zap.Error(err))
		return
	}
	if s.pendingClose != nil {
		select {
		case <-s.pendingClose:
			s.pendingClose = nil
		default:
			s.log.Debug("persistence: the failed store is still closing; the reopen waits for it")
			return
		}
	}
	if !s.gate.pause(reopenPause) {
		return
	}
	defer s.gate.resume()
	if s.db != nil {
		if err := s.closeDB(); err != nil {
			s.log.Warn("persistence: closing the failed store", zap.Error(err))
		}
		s.db = nil
	}
	db, err := badger.Open(s.opts)
	if err != nil {
		// Reads fail too until the next attempt succeeds (Get and Scan see no db).
		s.log.Error("persistence: reopening the store failed; retrying", zap.Duration("every", s.recoverEvery), zap.Error(err))
		return
	}
	s.db = db
	s.renotifySuspects() // before writes are accepted again
	s.failed.Store(nil)
	s.noteState("", false)
}

// noteSuspect remembers the keys of a transaction that was committed but whose sync
// failed: readers may have seen its values, which the reopened store may not hold.
// Writes stop after it, so the list stays as small as one group.
func (s *Badger) noteSuspect(reqs []*request) {
	s.suspectMu.Lock()
	defer s.suspectMu.Unlock()
	for _, r := range reqs {
		for _, op := range r.batch.Ops {
			s.suspect = append(s.suspect, bytes.Clone(op.Key))
		}
	}
}

// renotifySuspects tells the watchers again about the keys of failed transactions once
// the store is reopened, so that no cache keeps a value the disk never got.
func (s *Badger) renotifySuspects() {
	s.suspectMu.Lock()
	keys := s.suspect
	s.suspect = nil
	s.suspectMu.Unlock()
	for _, k := range keys {
		s.watchers.notify(k)
	}
}

// closeTimeout bounds closing a store whose writes fail: Badger's Close flushes the
// memtable and retries a failed flush every second forever (a removed directory, a
// full disk), which would hold up a shutdown for good.
const closeTimeout = 2 * time.Second

// closeDB closes Badger; when writes are failing it gives up after closeTimeout,
// leaving the close to finish (or not) in the background.
func (s *Badger) closeDB() error {
	if s.writable() == nil {
		return s.db.Close()
	}
	db := s.db
	done := make(chan error, 1)
	go func() { done <- db.Close() }()
	t := time.NewTimer(closeTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		s.pendingClose = done
		return fmt.Errorf("gave up closing the store after %s: its data directory does not take writes", closeTimeout)
	}
}

// probe writes and syncs a small file in the data directory: the disk takes writes.
func (s *Badger) probe() error {
	if s.probeHook != nil {
		if err := s.probeHook(); err != nil {
			return err
		}
	}
	name := filepath.Join(s.dir, probeName)
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(make([]byte, 4096))
	serr := f.Sync()
	cerr := f.Close()
	_ = os.Remove(name)
	return errors.Join(werr, serr, cerr)
}

// errNoDB is what reads answer while a reopen that failed leaves no database open.
var errNoDB = apierr.New(apierr.ErrUnavailable, "the store is being reopened after a storage failure")

// pause waits until no call is inside the store and holds new ones back, for at most
// d: it reports whether the store is now quiet (then resume must follow). A Scan whose
// callback calls Get cannot end while new calls are held back, so the wait is bounded
// and the attempt given up rather than deadlocked.
func (g *gate) pause(d time.Duration) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.paused = true
	g.timedOut = false
	t := time.AfterFunc(d, func() {
		g.mu.Lock()
		g.timedOut = true
		g.mu.Unlock()
		g.idle.Broadcast()
	})
	defer t.Stop()
	for g.n > 0 && !g.timedOut {
		g.idle.Wait()
	}
	if g.n > 0 {
		g.paused = false
		g.idle.Broadcast()
		return false
	}
	return true
}

// resume lets the calls held back by pause in.
func (g *gate) resume() {
	g.mu.Lock()
	g.paused = false
	g.mu.Unlock()
	g.idle.Broadcast()
}
