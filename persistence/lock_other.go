//go:build !unix

package persistence

// dirLock is a no-op where flock is not available: Badger's own directory lock still
// refuses a second process, without naming it.
type dirLock struct{}

func lockDir(string) (*dirLock, error) { return &dirLock{}, nil }

func (*dirLock) unlock() {}

// LockHolder cannot tell where flock is not available: it reports no holder.
func LockHolder(string) (pid int, held bool, err error) { return 0, false, nil }
