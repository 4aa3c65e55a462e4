//go:build unix

package persistence

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vmplane/vmplane/apierr"
)

// dirLock is the data directory's lock: an flock on DIR/vmplane.lock, taken before
// Badger opens the directory, so that a second process learns the holder's pid instead
// of Badger's "Cannot acquire directory lock". The kernel drops an flock when its
// holder dies, so a crash never leaves the directory locked; the file stays (removing
// it would let two processes lock two different inodes).
type dirLock struct{ f *os.File }

// lockDir creates dir if needed and locks it, or fails with an *InUseError.
func lockDir(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, apierr.New(apierr.ErrUnavailable, "cannot create data directory %s: %v", dir, err)
	}
	path := filepath.Join(dir, LockFile)
	// os.OpenFile sets O_CLOEXEC: the hash-worker children never inherit the lock.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, apierr.New(apierr.ErrUnavailable, "cannot open the lock file %s: %v", path, err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		f.Close()
		return nil, newInUseError(dir, holderPID(path))
	}
	if err != nil {
		f.Close()
		return nil, apierr.New(apierr.ErrUnavailable, "cannot lock %s: %v", path, err)
	}
	// Empty first, then the pid: a reader sees nothing (and waits) or the whole pid,
	// never the rest of a previous holder's.
	// (The write's error must reach the check below: it once went to a variable
	// scoped to the if, and a failed write went unnoticed.)
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, apierr.New(apierr.ErrUnavailable, "cannot write the lock file %s: %v", path, err)
	}
	return &dirLock{f: f}, nil
}

// holderPID reads the pid the holder wrote. The holder writes it just after taking the
// lock, so an empty file is retried briefly; 0 means it could not be read.
func holderPID(path string) int {
	for i := 0; i < 50; i++ {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		if s, ok := bytes.CutSuffix(b, []byte("\n")); ok {
			if pid, err := strconv.Atoi(string(s)); err == nil && pid > 0 {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// unlock releases the lock. The pid is cleared first so that the file never names a
// process that no longer holds it (one that crashed leaves its pid, and no lock).
func (l *dirLock) unlock() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	_ = l.f.Close() // closing the last descriptor drops the flock
	l.f = nil
}

// LockHolder reports whether a process holds dir's lock, and its pid (0 when it could
// not be read), without taking the lock. A directory without a lock file is not held.
func LockHolder(dir string) (pid int, held bool, err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return holderPID(path), true, nil
	}
	if err != nil {
		return 0, false, err
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return 0, false, nil
}
