package persistence

import (
	"github.com/vmplane/vmplane/apierr"
)

// LockFile is the name, inside the data directory, of the file whose lock says which
// process owns the directory; it holds that process's pid.
const LockFile = "vmplane.lock"

// InUseError is returned by Open when another process (or another Open in this one)
// holds the data directory. It is an apierr.ErrUnavailable error; PID is the holder's
// process id, 0 when it could not be read.
type InUseError struct {
	Dir string
	PID int
	err *apierr.Error
}

func newInUseError(dir string, pid int) *InUseError {
	var e *apierr.Error
	if pid > 0 {
		e = apierr.New(apierr.ErrUnavailable, "data directory %s is in use by vmplane process %d", dir, pid)
	} else {
		e = apierr.New(apierr.ErrUnavailable, "data directory %s is in use by another vmplane process", dir)
	}
	return &InUseError{Dir: dir, PID: pid, err: e}
}

func (e *InUseError) Error() string { return e.err.Detail }

// Unwrap makes errors.Is(err, apierr.ErrUnavailable) and apierr.From see the API error.
func (e *InUseError) Unwrap() error { return e.err }
