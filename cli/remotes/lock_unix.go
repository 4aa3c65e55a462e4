//go:build unix

package remotes

import (
	"os"
	"syscall"
)

// lockFileExclusive takes an exclusive flock on f, released when f is closed.
func lockFileExclusive(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
